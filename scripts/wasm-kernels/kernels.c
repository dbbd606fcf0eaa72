// llama.cpp's hot CPU kernels for WebAssembly SIMD, written here (docs/engines.md, "The WebAssembly files: SIMD
// kernels", says why and how they get into wllama's wasm). Each function has the name and the C signature of the ggml function whose generic
// body it replaces, and the block layouts of ggml-common.h (asserted below). Built as SIMD128 (i32x4.dot_i16x8_s)
// and, with -mrelaxed-simd, with i32x4.relaxed_dot_i8x16_i7x16_add where that is exact: the i7 operand always holds
// values 0..63 (weight nibbles or 6-bit weights), never the signed activations (x86 engines read that operand as
// unsigned), and no pair of products can saturate 16 bits (63 * 128 * 2 < 32768).
//
// Leaf functions only: no calls, no globals, no stack (no local arrays), so their bodies can be moved into another
// module as they are; scripts/wasm-kernels/splice.mjs checks this and refuses a body that breaks it.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#define QK_K 256
typedef uint16_t ggml_half;
typedef struct { ggml_half d; uint8_t qs[16]; } block_q4_0;
typedef struct { ggml_half d; int8_t qs[32]; } block_q8_0;
typedef struct { ggml_half d; ggml_half dmin; uint8_t scales[12]; uint8_t qs[QK_K / 2]; } block_q4_K;
typedef struct { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; ggml_half d; } block_q6_K;
typedef struct { float d; int8_t qs[QK_K]; int16_t bsums[QK_K / 16]; } block_q8_K;
_Static_assert(sizeof(block_q4_0) == 18, "block_q4_0");
_Static_assert(sizeof(block_q8_0) == 34, "block_q8_0");
_Static_assert(sizeof(block_q4_K) == 144, "block_q4_K");
_Static_assert(sizeof(block_q6_K) == 210, "block_q6_K");
_Static_assert(sizeof(block_q8_K) == 292, "block_q8_K");

#define EXPORT(name) __attribute__((export_name(#name))) name

static inline float as_f32(uint32_t w) { return __builtin_bit_cast(float, w); }
static inline uint32_t as_u32(float f) { return __builtin_bit_cast(uint32_t, f); }

// IEEE half to float, exactly as ggml's ggml_compute_fp16_to_fp32 (subnormals, infinities and NaN included).
static inline float fp16_to_fp32(ggml_half h) {
  const uint32_t w = (uint32_t)h << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const float normalized = as_f32((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = as_f32((two_w >> 17) | (126u << 23)) - 0.5f;
  return as_f32(sign | (two_w < (1u << 27) ? as_u32(denormalized) : as_u32(normalized)));
}

// The same on four halves widened to i32 lanes.
static inline v128_t fp16x4_to_fp32x4(v128_t h) {
  const v128_t w = wasm_i32x4_shl(h, 16);
  const v128_t sign = wasm_v128_and(w, wasm_u32x4_splat(0x80000000u));
  const v128_t two_w = wasm_i32x4_add(w, w);
  const v128_t normalized =
      wasm_f32x4_mul(wasm_i32x4_add(wasm_u32x4_shr(two_w, 4), wasm_u32x4_splat(0xE0u << 23)), wasm_f32x4_splat(0x1.0p-112f));
  const v128_t denormalized =
      wasm_f32x4_sub(wasm_v128_or(wasm_u32x4_shr(two_w, 17), wasm_u32x4_splat(126u << 23)), wasm_f32x4_splat(0.5f));
  const v128_t small = wasm_u32x4_lt(two_w, wasm_u32x4_splat(1u << 27));
  return wasm_v128_or(sign, wasm_v128_bitselect(denormalized, normalized, small));
}

static inline float hsum_f32x4(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
         wasm_f32x4_extract_lane(v, 3);
}
static inline int32_t hsum_i32x4(v128_t v) {
  return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) +
         wasm_i32x4_extract_lane(v, 3);
}

// Σ a[i]·b[i] over 16 signed bytes, as four i32 partial sums (SIMD128: widen to i16, then i32x4.dot_i16x8_s).
static inline v128_t dot_i8(v128_t a, v128_t b) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(a), wasm_i16x8_extend_low_i8x16(b)),
                        wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(a), wasm_i16x8_extend_high_i8x16(b)));
}

// Σ u[i]·s[i] for u in 0..63 (unsigned bytes) and s signed bytes, added to acc.
__attribute__((unused)) static inline v128_t dot_u6_i8_add(v128_t u, v128_t s, v128_t acc) {
#ifdef __wasm_relaxed_simd__
  return wasm_i32x4_relaxed_dot_i8x16_i7x16_add(s, u, acc);
#else
  return wasm_i32x4_add(acc,
                        wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(u), wasm_i16x8_extend_low_i8x16(s)),
                                       wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(u), wasm_i16x8_extend_high_i8x16(s))));
#endif
}

// Lane k of the result: the sum of the four lanes of the k-th argument (a transpose, added as it goes).
static inline v128_t hsum4_i32x4(v128_t a, v128_t b, v128_t c, v128_t d) {
  const v128_t ab = wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  const v128_t cd = wasm_i32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  return wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

// d(x)·d(y) of four consecutive blocks, one per lane: the halves widened into lanes, converted four at a time.
#define BLOCK_SCALES4(x, y, i)                                                                                        \
  wasm_f32x4_mul(fp16x4_to_fp32x4(wasm_i32x4_make((x)[i].d, (x)[(i) + 1].d, (x)[(i) + 2].d, (x)[(i) + 3].d)),        \
                 fp16x4_to_fp32x4(wasm_i32x4_make((y)[i].d, (y)[(i) + 1].d, (y)[(i) + 2].d, (y)[(i) + 3].d)))

// Σ over nb blocks of block_dot(x + i, y + i)·d(x[i])·d(y[i]), for the kernels on 32-weight blocks. Blocks go four at
// a time: their integer sums are gathered into one vector's lanes, so the scales are converted and applied four at a
// time instead of one by one in scalar code (the per-block cost that dominated these blocks); the last nb mod 4
// blocks go one by one.
#define SUM_BLOCKS4(block_dot, x, y, nb)                                                                              \
  ({                                                                                                                  \
    v128_t acc = wasm_f32x4_splat(0.0f);                                                                              \
    int i = 0;                                                                                                        \
    for (; i + 4 <= (nb); i += 4) {                                                                                   \
      const v128_t p = hsum4_i32x4(block_dot((x) + i, (y) + i), block_dot((x) + i + 1, (y) + i + 1),                  \
                                   block_dot((x) + i + 2, (y) + i + 2), block_dot((x) + i + 3, (y) + i + 3));         \
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(p), BLOCK_SCALES4(x, y, i)));                 \
    }                                                                                                                 \
    for (; i < (nb); i++) {                                                                                           \
      const float d = fp16_to_fp32((x)[i].d) * fp16_to_fp32((y)[i].d);                                                \
      const v128_t p = wasm_f32x4_convert_i32x4(block_dot((x) + i, (y) + i));                                        \
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(p, wasm_f32x4_splat(d)));                                              \
    }                                                                                                                 \
    hsum_f32x4(acc);                                                                                                  \
  })

// The integer dot product of one q8_0 block pair, as four i32 partial sums.
static inline v128_t dot_q8_0_block(const block_q8_0 *restrict x, const block_q8_0 *restrict y) {
  return wasm_i32x4_add(dot_i8(wasm_v128_load(x->qs), wasm_v128_load(y->qs)),
                        dot_i8(wasm_v128_load(x->qs + 16), wasm_v128_load(y->qs + 16)));
}

void EXPORT(ggml_vec_dot_q8_0_q8_0)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  (void)bs, (void)bx, (void)by, (void)nrc;
  const block_q8_0 *restrict x = vx;
  const block_q8_0 *restrict y = vy;
  const int nb = n / 32;
  *s = SUM_BLOCKS4(dot_q8_0_block, x, y, nb);
}

// The integer dot product of one q4_0 block (nibble − 8) with a q8_0 block, as four i32 partial sums.
static inline v128_t dot_q4_0_block(const block_q4_0 *restrict x, const block_q8_0 *restrict y) {
  const v128_t low4 = wasm_i8x16_splat(0x0F);
  const v128_t eight = wasm_i8x16_splat(8);
  const v128_t q = wasm_v128_load(x->qs);
  const v128_t y0 = wasm_v128_load(y->qs);
  const v128_t y1 = wasm_v128_load(y->qs + 16);
  const v128_t lo = wasm_v128_and(q, low4);
  const v128_t hi = wasm_u8x16_shr(q, 4);
#ifdef __wasm_relaxed_simd__
  // Σ (q - 8)·y = Σ q·y - Σ 8·y, every operand of the i7 slot in 0..15.
  const v128_t qy = dot_u6_i8_add(lo, y0, dot_u6_i8_add(hi, y1, wasm_i32x4_splat(0)));
  const v128_t ey = dot_u6_i8_add(eight, y0, dot_u6_i8_add(eight, y1, wasm_i32x4_splat(0)));
  return wasm_i32x4_sub(qy, ey);
#else
  return wasm_i32x4_add(dot_i8(wasm_i8x16_sub(lo, eight), y0), dot_i8(wasm_i8x16_sub(hi, eight), y1));
#endif
}

void EXPORT(ggml_vec_dot_q4_0_q8_0)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  (void)bs, (void)bx, (void)by, (void)nrc;
  const block_q4_0 *restrict x = vx;
  const block_q8_0 *restrict y = vy;
  const int nb = n / 32;
  *s = SUM_BLOCKS4(dot_q4_0_block, x, y, nb);
}

// Σ u[i]·s[i] for u in 0..15 (nibbles as bytes) and s signed bytes, over 32 pairs (u0·s0 and u1·s1), as eight i16
// partial sums (each within ±4·15·128 = ±7680, so no i16 overflow).
static inline v128_t dot_u4_i8_x2(v128_t u0, v128_t s0, v128_t u1, v128_t s1) {
#ifdef __wasm_relaxed_simd__
  return wasm_i16x8_add(wasm_i16x8_relaxed_dot_i8x16_i7x16(s0, u0), wasm_i16x8_relaxed_dot_i8x16_i7x16(s1, u1));
#else
  return wasm_i16x8_add(wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(u0, s0), wasm_i16x8_extmul_high_i8x16(u0, s0)),
                        wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(u1, s1), wasm_i16x8_extmul_high_i8x16(u1, s1)));
#endif
}

void EXPORT(ggml_vec_dot_q4_K_q8_K)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  (void)bs, (void)bx, (void)by, (void)nrc;
  const block_q4_K *restrict x = vx;
  const block_q8_K *restrict y = vy;
  const int nb = n / QK_K;
  const v128_t low4 = wasm_i8x16_splat(0x0F);
  const v128_t zero = wasm_i32x4_splat(0);
  v128_t accf = wasm_f32x4_splat(0.0f);
  for (int i = 0; i < nb; i++) {
    // The 8 six-bit scales (bytes 0..7) and mins (bytes 8..15) of ggml's 12-byte packing, in one vector.
    uint32_t u0, u1, u2;
    __builtin_memcpy(&u0, x[i].scales, 4);
    __builtin_memcpy(&u1, x[i].scales + 4, 4);
    __builtin_memcpy(&u2, x[i].scales + 8, 4);
    const uint32_t sc_lo = u0 & 0x3f3f3f3fu;
    const uint32_t sc_hi = (u2 & 0x0f0f0f0fu) | (((u0 >> 6) & 0x03030303u) << 4);
    const uint32_t m_lo = u1 & 0x3f3f3f3fu;
    const uint32_t m_hi = ((u2 >> 4) & 0x0f0f0f0fu) | (((u1 >> 6) & 0x03030303u) << 4);
    const v128_t sm = wasm_u32x4_make(sc_lo, sc_hi, m_lo, m_hi);
    // Σ_s min_s·(bsums[2s] + bsums[2s+1]): each min widened to two i16 lanes, against the 16 bsums.
    const v128_t mins_a = wasm_i8x16_shuffle(sm, zero, 8, 16, 8, 16, 9, 16, 9, 16, 10, 16, 10, 16, 11, 16, 11, 16);
    const v128_t mins_b = wasm_i8x16_shuffle(sm, zero, 12, 16, 12, 16, 13, 16, 13, 16, 14, 16, 14, 16, 15, 16, 15, 16);
    const v128_t msum = wasm_i32x4_add(wasm_i32x4_dot_i16x8(mins_a, wasm_v128_load(y[i].bsums)),
                                       wasm_i32x4_dot_i16x8(mins_b, wasm_v128_load(y[i].bsums + 8)));
    const v128_t scales = wasm_u16x8_extend_low_u8x16(sm);
    v128_t acc = zero;
    const uint8_t *q4 = x[i].qs;
    const int8_t *q8 = y[i].qs;
#define Q4K_PAIR(j, lane_lo, lane_hi)                                                                                     \
  do {                                                                                                                     \
    const v128_t a = wasm_v128_load(q4 + 32 * (j));                                                                        \
    const v128_t b = wasm_v128_load(q4 + 32 * (j) + 16);                                                                   \
    const v128_t plo = dot_u4_i8_x2(wasm_v128_and(a, low4), wasm_v128_load(q8 + 64 * (j)), wasm_v128_and(b, low4),        \
                                    wasm_v128_load(q8 + 64 * (j) + 16));                                                   \
    const v128_t phi = dot_u4_i8_x2(wasm_u8x16_shr(a, 4), wasm_v128_load(q8 + 64 * (j) + 32), wasm_u8x16_shr(b, 4),        \
                                    wasm_v128_load(q8 + 64 * (j) + 48));                                                   \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(plo, wasm_i16x8_shuffle(scales, scales, lane_lo, lane_lo, lane_lo,      \
                                                                             lane_lo, lane_lo, lane_lo, lane_lo, lane_lo))); \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(phi, wasm_i16x8_shuffle(scales, scales, lane_hi, lane_hi, lane_hi,      \
                                                                             lane_hi, lane_hi, lane_hi, lane_hi, lane_hi))); \
  } while (0)
    Q4K_PAIR(0, 0, 1);
    Q4K_PAIR(1, 2, 3);
    Q4K_PAIR(2, 4, 5);
    Q4K_PAIR(3, 6, 7);
#undef Q4K_PAIR
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    const float dmin = fp16_to_fp32(x[i].dmin) * y[i].d;
    accf = wasm_f32x4_add(accf, wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc), wasm_f32x4_splat(d)),
                                               wasm_f32x4_mul(wasm_f32x4_convert_i32x4(msum), wasm_f32x4_splat(dmin))));
  }
  *s = hsum_f32x4(accf);
}

// u[i]·s[i] summed in adjacent pairs, as eight i16 (u in 0..63: each pair within ±2·63·128 = ±16128).
static inline v128_t dot_u6_i8_pairs(v128_t u, v128_t s) {
#ifdef __wasm_relaxed_simd__
  return wasm_i16x8_relaxed_dot_i8x16_i7x16(s, u);
#else
  return wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(u, s), wasm_i16x8_extmul_high_i8x16(u, s));
#endif
}

void EXPORT(ggml_vec_dot_q6_K_q8_K)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  (void)bs, (void)bx, (void)by, (void)nrc;
  const block_q6_K *restrict x = vx;
  const block_q8_K *restrict y = vy;
  const int nb = n / QK_K;
  const v128_t low4 = wasm_i8x16_splat(0x0F);
  const v128_t two = wasm_i8x16_splat(3);
  float sumf = 0.0f;
  for (int i = 0; i < nb; i++) {
    const uint8_t *ql = x[i].ql;
    const uint8_t *qh = x[i].qh;
    const int8_t *sc = x[i].scales;
    const int8_t *q8 = y[i].qs;
    v128_t acc = wasm_i32x4_splat(0);
    // Weights as unsigned 0..63; the offset of 32 comes off at the end: 32·Σ_g scale_g·Σ y over group g (bsums).
    for (int half = 0; half < 2; half++) {
      for (int h = 0; h < 2; h++) {
        const v128_t a = wasm_v128_load(ql + 16 * h);
        const v128_t b = wasm_v128_load(ql + 32 + 16 * h);
        const v128_t hb = wasm_v128_load(qh + 16 * h);
        const v128_t u1 = wasm_v128_or(wasm_v128_and(a, low4), wasm_i8x16_shl(wasm_v128_and(hb, two), 4));
        const v128_t u2 = wasm_v128_or(wasm_v128_and(b, low4), wasm_i8x16_shl(wasm_v128_and(wasm_u8x16_shr(hb, 2), two), 4));
        const v128_t u3 = wasm_v128_or(wasm_u8x16_shr(a, 4), wasm_i8x16_shl(wasm_v128_and(wasm_u8x16_shr(hb, 4), two), 4));
        const v128_t u4 = wasm_v128_or(wasm_u8x16_shr(b, 4), wasm_i8x16_shl(wasm_u8x16_shr(hb, 6), 4));
        const int g = 8 * half + h;  // 16-element groups g, g+2, g+4, g+6
        acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u1, wasm_v128_load(q8 + 16 * h)), wasm_i16x8_splat(sc[g])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u2, wasm_v128_load(q8 + 32 + 16 * h)), wasm_i16x8_splat(sc[g + 2])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u3, wasm_v128_load(q8 + 64 + 16 * h)), wasm_i16x8_splat(sc[g + 4])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u4, wasm_v128_load(q8 + 96 + 16 * h)), wasm_i16x8_splat(sc[g + 6])));
      }
      ql += 64;
      qh += 32;
      q8 += 128;
    }
    // Σ_g scale_g·bsum_g as two i16 dot products (scales widened from i8).
    const v128_t scales = wasm_v128_load(sc);
    const v128_t off = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(scales), wasm_v128_load(y[i].bsums)),
                                      wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(scales), wasm_v128_load(y[i].bsums + 8)));
    const int32_t sumi = hsum_i32x4(acc) - 32 * hsum_i32x4(off);
    sumf += fp16_to_fp32(x[i].d) * y[i].d * (float)sumi;
  }
  *s = sumf;
}

static inline void fp16_row(const ggml_half *restrict x, float *restrict y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t h = wasm_v128_load(x + i);
    wasm_v128_store(y + i, fp16x4_to_fp32x4(wasm_u32x4_extend_low_u16x8(h)));
    wasm_v128_store(y + i + 4, fp16x4_to_fp32x4(wasm_u32x4_extend_high_u16x8(h)));
  }
  for (; i < n; i++) y[i] = fp16_to_fp32(x[i]);
}

void EXPORT(ggml_cpu_fp16_to_fp32)(const ggml_half *restrict x, float *restrict y, int64_t n) { fp16_row(x, y, n); }
void EXPORT(ggml_fp16_to_fp32_row)(const ggml_half *restrict x, float *restrict y, int64_t n) { fp16_row(x, y, n); }
