// llama.cpp's hot CPU kernels for WebAssembly SIMD, written here (docs/engines.md, "The WebAssembly files: SIMD
// kernels", says why and how they get into wllama's wasm). Each function has the name and the C signature of the ggml function whose generic
// body it replaces, and the block layouts of ggml-common.h (asserted below). Built as SIMD128 (i32x4.dot_i16x8_s)
// and, with -mrelaxed-simd, with i32x4.relaxed_dot_i8x16_i7x16_add where that is exact: the i7 operand always holds
// values 0..63 (weight nibbles or 6-bit weights), never the signed activations (x86 engines read that operand as
// unsigned), and no pair of products can saturate 16 bits (63 * 128 * 2 < 32768).
//
// Each dot kernel also takes ggml's 2×2 tiles (nrc == 2, as ARM's i8mm kernels do): two weight rows x0 = vx,
// x1 = vx + bx (bytes) against two activation columns y0 = vy, y1 = vy + by, stored as s[0] = x0·y0, s[1] = x1·y0,
// s[bs] = x0·y1, s[bs + 1] = x1·y1, so each unpacked weight block serves two tokens and each activation block two
// rows. ggml's mul_mat passes tiles only where type_traits_cpu[type].nrows is 2, which splice.mjs sets for these four
// types (ggml_type_traits_cpu below gives the offsets it patches); nrc == 1 is the plain dot product of before.
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

// ggml's struct ggml_type_traits_cpu (include/ggml-cpu.h), whose table (ggml-cpu.c, type_traits_cpu) splice.mjs patches
// in wllama's data: nrows sits at 16 of 24 bytes with 32-bit pointers, at 24 of 32 with 64-bit ones (asserted here for
// both builds, the numbers of TRAITS_LAYOUT in splice.mjs).
struct ggml_type_traits_cpu {
  void (*from_float)(const float *, void *, int64_t);
  void (*vec_dot)(int, float *, size_t, const void *, size_t, const void *, size_t, int);
  int vec_dot_type;
  int64_t nrows;
};
#if __SIZEOF_POINTER__ == 8
_Static_assert(sizeof(struct ggml_type_traits_cpu) == 32 && offsetof(struct ggml_type_traits_cpu, vec_dot) == 8 &&
                   offsetof(struct ggml_type_traits_cpu, vec_dot_type) == 16 && offsetof(struct ggml_type_traits_cpu, nrows) == 24,
               "ggml_type_traits_cpu, 64-bit");
#else
_Static_assert(sizeof(struct ggml_type_traits_cpu) == 24 && offsetof(struct ggml_type_traits_cpu, vec_dot) == 4 &&
                   offsetof(struct ggml_type_traits_cpu, vec_dot_type) == 8 && offsetof(struct ggml_type_traits_cpu, nrows) == 16,
               "ggml_type_traits_cpu, 32-bit");
#endif

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

// A 2×2 tile's four sums, lanes x0·y0, x1·y0, x0·y1, x1·y1, where ggml's mul_mat reads them.
static inline void store_tile(float *restrict s, size_t bs, v128_t v) {
  s[0] = wasm_f32x4_extract_lane(v, 0);
  s[1] = wasm_f32x4_extract_lane(v, 1);
  s[bs] = wasm_f32x4_extract_lane(v, 2);
  s[bs + 1] = wasm_f32x4_extract_lane(v, 3);
}

// The tile's rows (x0, x1) and columns (y0, y1) as four f32 (from halves or floats), combined into the tile's lanes.
static inline v128_t tile_mul(v128_t x0x1, v128_t y0y1) {
  return wasm_f32x4_mul(wasm_i32x4_shuffle(x0x1, x0x1, 0, 1, 0, 1), wasm_i32x4_shuffle(y0y1, y0y1, 0, 0, 1, 1));
}
// d(x0)·d(y0), d(x1)·d(y0), d(x0)·d(y1), d(x1)·d(y1) of four halves.
static inline v128_t tile_scales(ggml_half x0, ggml_half x1, ggml_half y0, ggml_half y1) {
  const v128_t f = fp16x4_to_fp32x4(wasm_i32x4_make(x0, x1, y0, y1));
  return tile_mul(f, wasm_i32x4_shuffle(f, f, 2, 3, 2, 3));
}

// 32 signed bytes (two vectors) widened to four i16x8, and the dot product of two such.
typedef struct { v128_t a, b, c, d; } i16x32;
static inline i16x32 widen32(v128_t lo, v128_t hi) {
  return (i16x32){wasm_i16x8_extend_low_i8x16(lo), wasm_i16x8_extend_high_i8x16(lo), wasm_i16x8_extend_low_i8x16(hi),
                  wasm_i16x8_extend_high_i8x16(hi)};
}
static inline v128_t dot_i16x32(i16x32 x, i16x32 y) {
  return wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_dot_i16x8(x.a, y.a), wasm_i32x4_dot_i16x8(x.b, y.b)),
                        wasm_i32x4_add(wasm_i32x4_dot_i16x8(x.c, y.c), wasm_i32x4_dot_i16x8(x.d, y.d)));
}

// The second row and column of a tile: `bx`/`by` bytes after the first.
#define NEXT(type, p, stride) ((const type *)((const uint8_t *)(p) + (stride)))

// The integer dot product of one q8_0 block pair, as four i32 partial sums.
static inline v128_t dot_q8_0_block(const block_q8_0 *restrict x, const block_q8_0 *restrict y) {
  return wasm_i32x4_add(dot_i8(wasm_v128_load(x->qs), wasm_v128_load(y->qs)),
                        dot_i8(wasm_v128_load(x->qs + 16), wasm_v128_load(y->qs + 16)));
}

void EXPORT(ggml_vec_dot_q8_0_q8_0)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  const block_q8_0 *restrict x = vx;
  const block_q8_0 *restrict y = vy;
  const int nb = n / 32;
  if (nrc == 2) {
    const block_q8_0 *restrict x1 = NEXT(block_q8_0, vx, bx);
    const block_q8_0 *restrict y1 = NEXT(block_q8_0, vy, by);
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
      // Each block widened once, for both of its products.
      const i16x32 a0 = widen32(wasm_v128_load(x[i].qs), wasm_v128_load(x[i].qs + 16));
      const i16x32 a1 = widen32(wasm_v128_load(x1[i].qs), wasm_v128_load(x1[i].qs + 16));
      const i16x32 b0 = widen32(wasm_v128_load(y[i].qs), wasm_v128_load(y[i].qs + 16));
      const i16x32 b1 = widen32(wasm_v128_load(y1[i].qs), wasm_v128_load(y1[i].qs + 16));
      const v128_t p = hsum4_i32x4(dot_i16x32(a0, b0), dot_i16x32(a1, b0), dot_i16x32(a0, b1), dot_i16x32(a1, b1));
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(p), tile_scales(x[i].d, x1[i].d, y[i].d, y1[i].d)));
    }
    store_tile(s, bs, acc);
    return;
  }
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
  const block_q4_0 *restrict x = vx;
  const block_q8_0 *restrict y = vy;
  const int nb = n / 32;
  if (nrc == 2) {
    const block_q4_0 *restrict x1 = NEXT(block_q4_0, vx, bx);
    const block_q8_0 *restrict y1 = NEXT(block_q8_0, vy, by);
    const v128_t low4 = wasm_i8x16_splat(0x0F);
    const v128_t eight = wasm_i8x16_splat(8);
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
      const v128_t q0 = wasm_v128_load(x[i].qs);
      const v128_t q1 = wasm_v128_load(x1[i].qs);
      const v128_t y0l = wasm_v128_load(y[i].qs), y0h = wasm_v128_load(y[i].qs + 16);
      const v128_t y1l = wasm_v128_load(y1[i].qs), y1h = wasm_v128_load(y1[i].qs + 16);
#ifdef __wasm_relaxed_simd__
      // Σ (q - 8)·y = Σ q·y - 8·Σ y: the nibbles in the i7 slot, and 8·Σ y once per column.
      const v128_t z = wasm_i32x4_splat(0);
      const v128_t l0 = wasm_v128_and(q0, low4), h0 = wasm_u8x16_shr(q0, 4);
      const v128_t l1 = wasm_v128_and(q1, low4), h1 = wasm_u8x16_shr(q1, 4);
      const v128_t e0 = dot_u6_i8_add(eight, y0l, dot_u6_i8_add(eight, y0h, z));
      const v128_t e1 = dot_u6_i8_add(eight, y1l, dot_u6_i8_add(eight, y1h, z));
      const v128_t p = hsum4_i32x4(wasm_i32x4_sub(dot_u6_i8_add(l0, y0l, dot_u6_i8_add(h0, y0h, z)), e0),
                                   wasm_i32x4_sub(dot_u6_i8_add(l1, y0l, dot_u6_i8_add(h1, y0h, z)), e0),
                                   wasm_i32x4_sub(dot_u6_i8_add(l0, y1l, dot_u6_i8_add(h0, y1h, z)), e1),
                                   wasm_i32x4_sub(dot_u6_i8_add(l1, y1l, dot_u6_i8_add(h1, y1h, z)), e1));
#else
      // (q - 8)·y products within ±8·128 = ±1024, so four of them add up in i16 (±4096): i16x8.extmul, no widening.
      const v128_t x0l = wasm_i8x16_sub(wasm_v128_and(q0, low4), eight), x0h = wasm_i8x16_sub(wasm_u8x16_shr(q0, 4), eight);
      const v128_t x1l = wasm_i8x16_sub(wasm_v128_and(q1, low4), eight), x1h = wasm_i8x16_sub(wasm_u8x16_shr(q1, 4), eight);
#define Q40_PAIRS(xl, xh, yl, yh)                                                                                     \
  wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_add(wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(xl, yl), wasm_i16x8_extmul_high_i8x16(xl, yl)), \
                                                  wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(xh, yh), wasm_i16x8_extmul_high_i8x16(xh, yh))))
      const v128_t p = hsum4_i32x4(Q40_PAIRS(x0l, x0h, y0l, y0h), Q40_PAIRS(x1l, x1h, y0l, y0h), Q40_PAIRS(x0l, x0h, y1l, y1h),
                                   Q40_PAIRS(x1l, x1h, y1l, y1h));
#undef Q40_PAIRS
#endif
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(p), tile_scales(x[i].d, x1[i].d, y[i].d, y1[i].d)));
    }
    store_tile(s, bs, acc);
    return;
  }
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

// The 8 six-bit scales (bytes 0..7) and mins (bytes 8..15) of a q4_K block's 12-byte packing, in one vector.
static inline v128_t q4k_scales_mins(const uint8_t *scales) {
  uint32_t u0, u1, u2;
  __builtin_memcpy(&u0, scales, 4);
  __builtin_memcpy(&u1, scales + 4, 4);
  __builtin_memcpy(&u2, scales + 8, 4);
  const uint32_t sc_lo = u0 & 0x3f3f3f3fu;
  const uint32_t sc_hi = (u2 & 0x0f0f0f0fu) | (((u0 >> 6) & 0x03030303u) << 4);
  const uint32_t m_lo = u1 & 0x3f3f3f3fu;
  const uint32_t m_hi = ((u2 >> 4) & 0x0f0f0f0fu) | (((u1 >> 6) & 0x03030303u) << 4);
  return wasm_u32x4_make(sc_lo, sc_hi, m_lo, m_hi);
}

// Σ_s min_s·(bsums[2s] + bsums[2s+1]) as four i32 partial sums: each min widened to two i16 lanes, against the 16 bsums.
static inline v128_t q4k_min_sum(v128_t sm, const int16_t *bsums) {
  const v128_t zero = wasm_i32x4_splat(0);
  const v128_t mins_a = wasm_i8x16_shuffle(sm, zero, 8, 16, 8, 16, 9, 16, 9, 16, 10, 16, 10, 16, 11, 16, 11, 16);
  const v128_t mins_b = wasm_i8x16_shuffle(sm, zero, 12, 16, 12, 16, 13, 16, 13, 16, 14, 16, 14, 16, 15, 16, 15, 16);
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(mins_a, wasm_v128_load(bsums)), wasm_i32x4_dot_i16x8(mins_b, wasm_v128_load(bsums + 8)));
}

// Lane k of a 16-bit vector in all eight lanes.
#define LANE16(v, k) wasm_i16x8_shuffle(v, v, k, k, k, k, k, k, k, k)

void EXPORT(ggml_vec_dot_q4_K_q8_K)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  const block_q4_K *restrict x = vx;
  const block_q8_K *restrict y = vy;
  const int nb = n / QK_K;
  const v128_t low4 = wasm_i8x16_splat(0x0F);
  const v128_t zero = wasm_i32x4_splat(0);
  if (nrc == 2) {
    const block_q4_K *restrict x1 = NEXT(block_q4_K, vx, bx);
    const block_q8_K *restrict y1 = NEXT(block_q8_K, vy, by);
    v128_t accf = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
      const v128_t sm0 = q4k_scales_mins(x[i].scales);
      const v128_t sm1 = q4k_scales_mins(x1[i].scales);
      const v128_t msum = hsum4_i32x4(q4k_min_sum(sm0, y[i].bsums), q4k_min_sum(sm1, y[i].bsums), q4k_min_sum(sm0, y1[i].bsums),
                                      q4k_min_sum(sm1, y1[i].bsums));
      const v128_t sc0 = wasm_u16x8_extend_low_u8x16(sm0);
      const v128_t sc1 = wasm_u16x8_extend_low_u8x16(sm1);
      v128_t a00 = zero, a10 = zero, a01 = zero, a11 = zero;  // a<row><column>
      const uint8_t *p0 = x[i].qs, *p1 = x1[i].qs;
      const int8_t *q0 = y[i].qs, *q1 = y1[i].qs;
      // Each 32-byte run of nibbles unpacked once (both rows) against each 64 activations loaded once (both columns).
#define Q4K_TILE_PAIR(j, lane_lo, lane_hi)                                                                             \
  do {                                                                                                                  \
    const v128_t r0a = wasm_v128_load(p0 + 32 * (j)), r0b = wasm_v128_load(p0 + 32 * (j) + 16);                        \
    const v128_t r1a = wasm_v128_load(p1 + 32 * (j)), r1b = wasm_v128_load(p1 + 32 * (j) + 16);                        \
    const v128_t l0a = wasm_v128_and(r0a, low4), l0b = wasm_v128_and(r0b, low4);                                        \
    const v128_t h0a = wasm_u8x16_shr(r0a, 4), h0b = wasm_u8x16_shr(r0b, 4);                                            \
    const v128_t l1a = wasm_v128_and(r1a, low4), l1b = wasm_v128_and(r1b, low4);                                        \
    const v128_t h1a = wasm_u8x16_shr(r1a, 4), h1b = wasm_u8x16_shr(r1b, 4);                                            \
    const v128_t c0a = wasm_v128_load(q0 + 64 * (j)), c0b = wasm_v128_load(q0 + 64 * (j) + 16);                        \
    const v128_t c0c = wasm_v128_load(q0 + 64 * (j) + 32), c0d = wasm_v128_load(q0 + 64 * (j) + 48);                   \
    const v128_t c1a = wasm_v128_load(q1 + 64 * (j)), c1b = wasm_v128_load(q1 + 64 * (j) + 16);                        \
    const v128_t c1c = wasm_v128_load(q1 + 64 * (j) + 32), c1d = wasm_v128_load(q1 + 64 * (j) + 48);                   \
    const v128_t s0l = LANE16(sc0, lane_lo), s0h = LANE16(sc0, lane_hi);                                                \
    const v128_t s1l = LANE16(sc1, lane_lo), s1h = LANE16(sc1, lane_hi);                                                \
    a00 = wasm_i32x4_add(a00, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dot_u4_i8_x2(l0a, c0a, l0b, c0b), s0l),              \
                                             wasm_i32x4_dot_i16x8(dot_u4_i8_x2(h0a, c0c, h0b, c0d), s0h)));            \
    a10 = wasm_i32x4_add(a10, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dot_u4_i8_x2(l1a, c0a, l1b, c0b), s1l),              \
                                             wasm_i32x4_dot_i16x8(dot_u4_i8_x2(h1a, c0c, h1b, c0d), s1h)));            \
    a01 = wasm_i32x4_add(a01, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dot_u4_i8_x2(l0a, c1a, l0b, c1b), s0l),              \
                                             wasm_i32x4_dot_i16x8(dot_u4_i8_x2(h0a, c1c, h0b, c1d), s0h)));            \
    a11 = wasm_i32x4_add(a11, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dot_u4_i8_x2(l1a, c1a, l1b, c1b), s1l),              \
                                             wasm_i32x4_dot_i16x8(dot_u4_i8_x2(h1a, c1c, h1b, c1d), s1h)));            \
  } while (0)
      Q4K_TILE_PAIR(0, 0, 1);
      Q4K_TILE_PAIR(1, 2, 3);
      Q4K_TILE_PAIR(2, 4, 5);
      Q4K_TILE_PAIR(3, 6, 7);
#undef Q4K_TILE_PAIR
      const v128_t acc = hsum4_i32x4(a00, a10, a01, a11);
      const v128_t yd = wasm_f32x4_make(y[i].d, y1[i].d, 0.0f, 0.0f);
      const v128_t xd = fp16x4_to_fp32x4(wasm_i32x4_make(x[i].d, x1[i].d, x[i].dmin, x1[i].dmin));
      const v128_t d = tile_mul(xd, yd);
      const v128_t dmin = tile_mul(wasm_i32x4_shuffle(xd, xd, 2, 3, 2, 3), yd);
      accf = wasm_f32x4_add(accf, wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc), d),
                                                 wasm_f32x4_mul(wasm_f32x4_convert_i32x4(msum), dmin)));
    }
    store_tile(s, bs, accf);
    return;
  }
  v128_t accf = wasm_f32x4_splat(0.0f);
  for (int i = 0; i < nb; i++) {
    const v128_t sm = q4k_scales_mins(x[i].scales);
    const v128_t msum = q4k_min_sum(sm, y[i].bsums);
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
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(plo, LANE16(scales, lane_lo)));                                         \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(phi, LANE16(scales, lane_hi)));                                         \
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

// 64 weights of a q6_K block as unsigned 0..63: the four 16-byte runs that pair with the activations at 16h, 32 + 16h,
// 64 + 16h and 96 + 16h of the block's half at ql, qh.
typedef struct { v128_t u1, u2, u3, u4; } q6k_runs;
static inline q6k_runs q6k_unpack(const uint8_t *ql, const uint8_t *qh, int h) {
  const v128_t low4 = wasm_i8x16_splat(0x0F);
  const v128_t two = wasm_i8x16_splat(3);
  const v128_t a = wasm_v128_load(ql + 16 * h);
  const v128_t b = wasm_v128_load(ql + 32 + 16 * h);
  const v128_t hb = wasm_v128_load(qh + 16 * h);
  return (q6k_runs){
      wasm_v128_or(wasm_v128_and(a, low4), wasm_i8x16_shl(wasm_v128_and(hb, two), 4)),
      wasm_v128_or(wasm_v128_and(b, low4), wasm_i8x16_shl(wasm_v128_and(wasm_u8x16_shr(hb, 2), two), 4)),
      wasm_v128_or(wasm_u8x16_shr(a, 4), wasm_i8x16_shl(wasm_v128_and(wasm_u8x16_shr(hb, 4), two), 4)),
      wasm_v128_or(wasm_u8x16_shr(b, 4), wasm_i8x16_shl(wasm_u8x16_shr(hb, 6), 4)),
  };
}

// acc + the four runs against the activations at q8 (16-element groups g, g+2, g+4, g+6, scales sc).
static inline v128_t q6k_runs_dot(q6k_runs u, const int8_t *q8, const int8_t *sc, int g, int h, v128_t acc) {
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u.u1, wasm_v128_load(q8 + 16 * h)), wasm_i16x8_splat(sc[g])));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u.u2, wasm_v128_load(q8 + 32 + 16 * h)), wasm_i16x8_splat(sc[g + 2])));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u.u3, wasm_v128_load(q8 + 64 + 16 * h)), wasm_i16x8_splat(sc[g + 4])));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(dot_u6_i8_pairs(u.u4, wasm_v128_load(q8 + 96 + 16 * h)), wasm_i16x8_splat(sc[g + 6])));
  return acc;
}

// Σ_g scale_g·bsum_g as two i16 dot products (scales widened from i8), four i32 partial sums.
static inline v128_t q6k_offset(const int8_t *sc, const int16_t *bsums) {
  const v128_t scales = wasm_v128_load(sc);
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(scales), wasm_v128_load(bsums)),
                        wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(scales), wasm_v128_load(bsums + 8)));
}

void EXPORT(ggml_vec_dot_q6_K_q8_K)(int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
                                    const void *restrict vy, size_t by, int nrc) {
  const block_q6_K *restrict x = vx;
  const block_q8_K *restrict y = vy;
  const int nb = n / QK_K;
  const v128_t zero = wasm_i32x4_splat(0);
  // Weights as unsigned 0..63; the offset of 32 comes off at the end: 32·Σ_g scale_g·Σ y over group g (bsums).
  if (nrc == 2) {
    const block_q6_K *restrict x1 = NEXT(block_q6_K, vx, bx);
    const block_q8_K *restrict y1 = NEXT(block_q8_K, vy, by);
    v128_t sumf = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
      v128_t a00 = zero, a10 = zero, a01 = zero, a11 = zero;  // a<row><column>
      for (int half = 0; half < 2; half++) {
        const uint8_t *ql0 = x[i].ql + 64 * half, *qh0 = x[i].qh + 32 * half;
        const uint8_t *ql1 = x1[i].ql + 64 * half, *qh1 = x1[i].qh + 32 * half;
        const int8_t *c0 = y[i].qs + 128 * half, *c1 = y1[i].qs + 128 * half;
        for (int h = 0; h < 2; h++) {
          const int g = 8 * half + h;
          const q6k_runs r0 = q6k_unpack(ql0, qh0, h);
          const q6k_runs r1 = q6k_unpack(ql1, qh1, h);
          a00 = q6k_runs_dot(r0, c0, x[i].scales, g, h, a00);
          a10 = q6k_runs_dot(r1, c0, x1[i].scales, g, h, a10);
          a01 = q6k_runs_dot(r0, c1, x[i].scales, g, h, a01);
          a11 = q6k_runs_dot(r1, c1, x1[i].scales, g, h, a11);
        }
      }
      const v128_t off = hsum4_i32x4(q6k_offset(x[i].scales, y[i].bsums), q6k_offset(x1[i].scales, y[i].bsums),
                                     q6k_offset(x[i].scales, y1[i].bsums), q6k_offset(x1[i].scales, y1[i].bsums));
      const v128_t sumi = wasm_i32x4_sub(hsum4_i32x4(a00, a10, a01, a11), wasm_i32x4_shl(off, 5));
      const v128_t d = tile_mul(fp16x4_to_fp32x4(wasm_i32x4_make(x[i].d, x1[i].d, 0, 0)), wasm_f32x4_make(y[i].d, y1[i].d, 0.0f, 0.0f));
      sumf = wasm_f32x4_add(sumf, wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(sumi)));
    }
    store_tile(s, bs, sumf);
    return;
  }
  float sumf = 0.0f;
  for (int i = 0; i < nb; i++) {
    const uint8_t *ql = x[i].ql;
    const uint8_t *qh = x[i].qh;
    const int8_t *q8 = y[i].qs;
    v128_t acc = zero;
    for (int half = 0; half < 2; half++) {
      for (int h = 0; h < 2; h++) acc = q6k_runs_dot(q6k_unpack(ql, qh, h), q8, x[i].scales, 8 * half + h, h, acc);
      ql += 64;
      qh += 32;
      q8 += 128;
    }
    const int32_t sumi = hsum_i32x4(acc) - 32 * hsum_i32x4(q6k_offset(x[i].scales, y[i].bsums));
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
