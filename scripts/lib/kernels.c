// What build_runtime.py compiles into the page's runtime: ggml's wasm SIMD kernels (its
// arch/wasm/quants.c with the rounding fix, written to target/runtime/ by the build), with
// ggml's Q5_0, Q6_K and Q4_K dot products replaced by the ones below: the three types of the
// offered Qwen file's large matrices (a V8 profile of the model's worker put Q5_0 at half the
// page's time, Q6_K and Q4_K at 12% and 9%; ggml's Q6_K was no faster than the generic C).
//
// - One row against one column (writing): Q5_0 turns four blocks' integer sums into floats
//   and scales and adds them as one vector of four; Q6_K and Q4_K build each 16 weights in a
//   vector straight from the block, scale them in 16-bit lanes, and keep a block's sums in
//   one vector (ggml unpacks Q6_K with scalar code and reduces Q4_K's sums to scalars).
// - Two rows against two columns (reading a prompt): the splice sets these types' `nrows` to
//   2 in ggml's CPU type table, so its matrix product asks for this whenever both sides are
//   even. Each weight block is unpacked once for both columns, each activation block read
//   (Q6_K, Q4_K: widened) once for both rows, and the four results are scaled and added as
//   one vector. Q5_0's uses the relaxed dot product on the weights as stored (0..31).
// The integer sums are exact; only the order of the float sums changes.

// ggml's own Q5_0, Q6_K and Q4_K kernels become unused static functions: this file's take
// their names.
#define ggml_vec_dot_q5_0_q8_0 static ggml_wasm_vec_dot_q5_0_q8_0
#define ggml_vec_dot_q6_K_q8_K static ggml_wasm_vec_dot_q6_K_q8_K
#define ggml_vec_dot_q4_K_q8_K static ggml_wasm_vec_dot_q4_K_q8_K
#include "quants.c"
#undef ggml_vec_dot_q5_0_q8_0
#undef ggml_vec_dot_q6_K_q8_K
#undef ggml_vec_dot_q4_K_q8_K

// 32 signed values widened to 16 bits, eight per vector, in order.
typedef struct {
    v128_t part[4];
} wide32;

static inline wide32 widen(v128_t first16, v128_t last16) {
    wide32 w = {{
        wasm_i16x8_extend_low_i8x16(first16),
        wasm_i16x8_extend_high_i8x16(first16),
        wasm_i16x8_extend_low_i8x16(last16),
        wasm_i16x8_extend_high_i8x16(last16),
    }};
    return w;
}

// A Q5_0 block's weights, value - 16 in [-16, 15]. Weight j's low four bits are the low
// nibble of qs[j] (j < 16) or the high nibble of qs[j - 16]; its fifth bit is bit j of qh.
// table_b2b_1 (quants.c) spreads eight bits into eight bytes, 0x10 where a bit is clear:
// subtracting it subtracts 16 from exactly the weights whose fifth bit is 0.
static inline wide32 q5_0_weights(const block_q5_0 * block) {
    uint32_t fifth;
    memcpy(&fifth, block->qh, sizeof(fifth));
    const uint64_t minus16[4] = {
        table_b2b_1[fifth & 0xFF],
        table_b2b_1[(fifth >> 8) & 0xFF],
        table_b2b_1[(fifth >> 16) & 0xFF],
        table_b2b_1[fifth >> 24],
    };
    const v128_t nibbles = wasm_v128_load(block->qs);
    const v128_t first16 = wasm_i8x16_sub(wasm_v128_and(nibbles, wasm_i8x16_splat(0x0F)), wasm_v128_load(minus16));
    const v128_t last16 = wasm_i8x16_sub(wasm_u8x16_shr(nibbles, 4), wasm_v128_load(minus16 + 2));
    return widen(first16, last16);
}

static inline wide32 q8_0_values(const block_q8_0 * block) {
    return widen(wasm_v128_load(block->qs), wasm_v128_load(block->qs + 16));
}

// The integer dot product of two widened blocks, as four partial sums.
static inline v128_t partial_dot(const wide32 * a, const wide32 * b) {
    return wasm_i32x4_add(
        wasm_i32x4_add(wasm_i32x4_dot_i16x8(a->part[0], b->part[0]), wasm_i32x4_dot_i16x8(a->part[1], b->part[1])),
        wasm_i32x4_add(wasm_i32x4_dot_i16x8(a->part[2], b->part[2]), wasm_i32x4_dot_i16x8(a->part[3], b->part[3])));
}

static inline v128_t block_dot(const block_q5_0 * x, const block_q8_0 * y) {
    const wide32 w = q5_0_weights(x);
    const wide32 a = q8_0_values(y);
    return partial_dot(&w, &a);
}

// Lane k of the result: the sum of the four lanes of the k-th argument.
static inline v128_t sum_lanes_of_four(v128_t a, v128_t b, v128_t c, v128_t d) {
    const v128_t ab = wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), wasm_i32x4_shuffle(a, b, 1, 3, 5, 7));
    const v128_t cd = wasm_i32x4_add(wasm_i32x4_shuffle(c, d, 0, 2, 4, 6), wasm_i32x4_shuffle(c, d, 1, 3, 5, 7));
    return wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 2, 4, 6), wasm_i32x4_shuffle(ab, cd, 1, 3, 5, 7));
}

static inline float scale_of(ggml_half x, ggml_half y) {
    return GGML_CPU_FP16_TO_FP32(x) * GGML_CPU_FP16_TO_FP32(y);
}

// Lanes [x0·y0, x1·y0, x0·y1, x1·y1] where ggml's matrix product reads them: s[0], s[1],
// s[bs], s[bs + 1].
static inline void store_two_by_two(float * s, size_t bs, v128_t acc) {
    s[0] = wasm_f32x4_extract_lane(acc, 0);
    s[1] = wasm_f32x4_extract_lane(acc, 1);
    s[bs] = wasm_f32x4_extract_lane(acc, 2);
    s[bs + 1] = wasm_f32x4_extract_lane(acc, 3);
}

static inline float sum_of_lanes(v128_t v) {
    return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) +
           wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3);
}

// A Q5_0 block's weights as stored, in [0, 31] (table_b2b_0 spreads eight bits into eight
// bytes, 0x10 where a bit is set): the seven-bit operand of the relaxed dot product.
static inline void q5_0_unsigned(const block_q5_0 * block, v128_t * first16, v128_t * last16) {
    uint32_t fifth;
    memcpy(&fifth, block->qh, sizeof(fifth));
    const uint64_t plus16[4] = {
        table_b2b_0[fifth & 0xFF],
        table_b2b_0[(fifth >> 8) & 0xFF],
        table_b2b_0[(fifth >> 16) & 0xFF],
        table_b2b_0[fifth >> 24],
    };
    const v128_t nibbles = wasm_v128_load(block->qs);
    *first16 = wasm_v128_or(wasm_v128_and(nibbles, wasm_i8x16_splat(0x0F)), wasm_v128_load(plus16));
    *last16 = wasm_v128_or(wasm_u8x16_shr(nibbles, 4), wasm_v128_load(plus16 + 2));
}

// Rows x and x + bx against columns y and y + by: s[0] = x·y, s[1] = (x + bx)·y,
// s[bs] = x·(y + by), s[bs + 1] = (x + bx)·(y + by), the layout ggml's matrix product reads.
// Σ (w - 16)·a = Σ w·a - 16 Σ a, with w in [0, 31]: the relaxed dot product's seven-bit
// operand, exact whatever the engine (its result is implementation-defined only for values
// with the top bit set).
static void q5_0_two_by_two(int nb, float * s, size_t bs, const block_q5_0 * x0, const block_q5_0 * x1,
                            const block_q8_0 * y0, const block_q8_0 * y1) {
    v128_t acc = wasm_f32x4_splat(0.0f);
    const v128_t ones = wasm_i8x16_splat(1);
    const v128_t zero = wasm_i32x4_splat(0);
    for (int i = 0; i < nb; i++) {
        const v128_t a0f = wasm_v128_load(y0[i].qs), a0l = wasm_v128_load(y0[i].qs + 16);
        const v128_t a1f = wasm_v128_load(y1[i].qs), a1l = wasm_v128_load(y1[i].qs + 16);
        const v128_t sum0x16 = wasm_i32x4_shl(
            wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0l, ones, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0f, ones, zero)), 4);
        const v128_t sum1x16 = wasm_i32x4_shl(
            wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1l, ones, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1f, ones, zero)), 4);
        v128_t w0f, w0l, w1f, w1l;
        q5_0_unsigned(&x0[i], &w0f, &w0l);
        q5_0_unsigned(&x1[i], &w1f, &w1l);
        const v128_t p00 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0l, w0l, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0f, w0f, zero));
        const v128_t p01 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1l, w0l, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1f, w0f, zero));
        const v128_t p10 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0l, w1l, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0f, w1f, zero));
        const v128_t p11 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1l, w1l, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a1f, w1f, zero));
        const v128_t sums = sum_lanes_of_four(wasm_i32x4_sub(p00, sum0x16), wasm_i32x4_sub(p10, sum0x16),
                                              wasm_i32x4_sub(p01, sum1x16), wasm_i32x4_sub(p11, sum1x16));
        const v128_t scales = wasm_f32x4_make(scale_of(x0[i].d, y0[i].d), scale_of(x1[i].d, y0[i].d),
                                              scale_of(x0[i].d, y1[i].d), scale_of(x1[i].d, y1[i].d));
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sums), scales));
    }
    store_two_by_two(s, bs, acc);
}

void ggml_vec_dot_q5_0_q8_0(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT vx, size_t bx, const void * GGML_RESTRICT vy, size_t by, int nrc) {
    const int nb = n / QK8_0;
    const block_q5_0 * GGML_RESTRICT x = vx;
    const block_q8_0 * GGML_RESTRICT y = vy;
    if (nrc == 2) {
        q5_0_two_by_two(nb, s, bs, x, (const block_q5_0 *)((const uint8_t *)vx + bx), y,
                        (const block_q8_0 *)((const uint8_t *)vy + by));
        return;
    }
    v128_t acc = wasm_f32x4_splat(0.0f);
    int i = 0;
    for (; i + 4 <= nb; i += 4) {
        const v128_t p0 = block_dot(&x[i], &y[i]);
        const v128_t p1 = block_dot(&x[i + 1], &y[i + 1]);
        const v128_t p2 = block_dot(&x[i + 2], &y[i + 2]);
        const v128_t p3 = block_dot(&x[i + 3], &y[i + 3]);
        const v128_t scales = wasm_f32x4_make(scale_of(x[i].d, y[i].d), scale_of(x[i + 1].d, y[i + 1].d),
                                              scale_of(x[i + 2].d, y[i + 2].d), scale_of(x[i + 3].d, y[i + 3].d));
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sum_lanes_of_four(p0, p1, p2, p3)), scales));
    }
    float sum = sum_of_lanes(acc);
    for (; i < nb; i++) {
        const v128_t p = block_dot(&x[i], &y[i]);
        const int exact = wasm_i32x4_extract_lane(p, 0) + wasm_i32x4_extract_lane(p, 1) +
                          wasm_i32x4_extract_lane(p, 2) + wasm_i32x4_extract_lane(p, 3);
        sum += exact * scale_of(x[i].d, y[i].d);
    }
    *s = sum;
}

// Q6_K: half of the offered Qwen file's feed-forward output rows. ggml's wasm version unpacks
// the weights with scalar code into a buffer and scales in 32-bit lanes; this one builds each
// 16 weights in a vector straight from the block and scales them in 16-bit lanes (a weight
// times its scale fits: 32 × 128).
//
// A block's 256 weights come in two halves of 128. In a half, weight 16k + l (k < 8, l < 16)
// has its low four bits in byte (16k + l) mod 64 of the half's 64 bytes of `ql` (the low
// nibble for k < 4, the high one after), and its top two bits in byte 16(k mod 2) + l of the
// half's 32 bytes of `qh` (bits 0-1 for k = 0, 1; bits 2-3 for k = 2, 3; and so on). Each 16
// weights share one of the block's 16 scales. Bytes are shifted with 16-bit shifts, then
// masked to the bits that stayed inside each byte.
static inline v128_t q6_K_sixteen(v128_t low_bytes, int nibble_shift, v128_t high_bytes, int high_shift) {
    const v128_t low4 = wasm_v128_and(wasm_u16x8_shr(low_bytes, nibble_shift), wasm_i8x16_splat(0x0F));
    const v128_t placed = high_shift >= 0 ? wasm_i16x8_shl(high_bytes, high_shift) : wasm_u16x8_shr(high_bytes, -high_shift);
    const v128_t high2 = wasm_v128_and(placed, wasm_i8x16_splat(0x30));
    return wasm_i8x16_sub(wasm_v128_or(low4, high2), wasm_i8x16_splat(32));
}

// Sixteen weights (signed bytes) times their scale (in every 16-bit lane), widened.
static inline wide32 scaled16(v128_t weights, v128_t scale) {
    wide32 w = {{
        wasm_i16x8_mul(wasm_i16x8_extend_low_i8x16(weights), scale),
        wasm_i16x8_mul(wasm_i16x8_extend_high_i8x16(weights), scale),
    }};
    return w;
}

// Sixteen activations, widened.
static inline wide32 wide16(const int8_t * q8) {
    const v128_t a = wasm_v128_load(q8);
    wide32 w = {{wasm_i16x8_extend_low_i8x16(a), wasm_i16x8_extend_high_i8x16(a)}};
    return w;
}

// The dot product of two widened sixteens, as four partial sums.
static inline v128_t dot16(const wide32 * a, const wide32 * b) {
    return wasm_i32x4_add(wasm_i32x4_dot_i16x8(a->part[0], b->part[0]), wasm_i32x4_dot_i16x8(a->part[1], b->part[1]));
}

#define LANE(v, k) wasm_i16x8_shuffle(v, v, k, k, k, k, k, k, k, k)

// Weights 16k to 16k + 15 of a half (`ql`, `qh` its bytes), scaled: `scales` holds the
// half's eight scales in 16-bit lanes.
#define Q6_K_GROUP(k, ql, qh, scales)                                                            \
    scaled16(q6_K_sixteen(wasm_v128_load((ql) + 16 * ((k) % 4)), (k) < 4 ? 0 : 4,                  \
                          wasm_v128_load((qh) + 16 * ((k) % 2)), 4 - 2 * ((k) / 2)),             \
             LANE(scales, k))

// One half (128 weights) of a block against one column, as four partial sums.
static inline v128_t q6_K_half(const uint8_t * ql, const uint8_t * qh, v128_t scales, const int8_t * q8) {
    v128_t sum = wasm_i32x4_splat(0);
#define Q6_K_STEP(k)                                              \
    {                                                             \
        const wide32 w = Q6_K_GROUP(k, ql, qh, scales);           \
        const wide32 a = wide16(q8 + 16 * (k));                   \
        sum = wasm_i32x4_add(sum, dot16(&w, &a));                 \
    }
    Q6_K_STEP(0) Q6_K_STEP(1) Q6_K_STEP(2) Q6_K_STEP(3) Q6_K_STEP(4) Q6_K_STEP(5) Q6_K_STEP(6) Q6_K_STEP(7)
#undef Q6_K_STEP
    return sum;
}

// One half of two rows' blocks against two columns: each scaled group is made once for both
// columns, each column's sixteen widened once for both rows. Sums: [x0·y0, x1·y0, x0·y1, x1·y1].
static inline void q6_K_half_two_by_two(const block_q6_K * x0, const block_q6_K * x1, int half, v128_t scales0,
                                        v128_t scales1, const int8_t * y0, const int8_t * y1, v128_t sums[4]) {
    const uint8_t * ql0 = x0->ql + 64 * half;
    const uint8_t * qh0 = x0->qh + 32 * half;
    const uint8_t * ql1 = x1->ql + 64 * half;
    const uint8_t * qh1 = x1->qh + 32 * half;
#define Q6_K_STEP(k)                                                  \
    {                                                                 \
        const wide32 a0 = wide16(y0 + 16 * (k));                      \
        const wide32 a1 = wide16(y1 + 16 * (k));                      \
        const wide32 w0 = Q6_K_GROUP(k, ql0, qh0, scales0);           \
        sums[0] = wasm_i32x4_add(sums[0], dot16(&w0, &a0));           \
        sums[2] = wasm_i32x4_add(sums[2], dot16(&w0, &a1));           \
        const wide32 w1 = Q6_K_GROUP(k, ql1, qh1, scales1);           \
        sums[1] = wasm_i32x4_add(sums[1], dot16(&w1, &a0));           \
        sums[3] = wasm_i32x4_add(sums[3], dot16(&w1, &a1));           \
    }
    Q6_K_STEP(0) Q6_K_STEP(1) Q6_K_STEP(2) Q6_K_STEP(3) Q6_K_STEP(4) Q6_K_STEP(5) Q6_K_STEP(6) Q6_K_STEP(7)
#undef Q6_K_STEP
}

static inline v128_t q6_K_scales(const block_q6_K * x, int half) {
    const v128_t all = wasm_v128_load(x->scales);
    return half == 0 ? wasm_i16x8_extend_low_i8x16(all) : wasm_i16x8_extend_high_i8x16(all);
}

static void q6_K_two_by_two(int nb, float * s, size_t bs, const block_q6_K * x0, const block_q6_K * x1,
                            const block_q8_K * y0, const block_q8_K * y1) {
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
        v128_t sums[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
        for (int half = 0; half < 2; half++) {
            q6_K_half_two_by_two(&x0[i], &x1[i], half, q6_K_scales(&x0[i], half), q6_K_scales(&x1[i], half),
                                 y0[i].qs + 128 * half, y1[i].qs + 128 * half, sums);
        }
        const float dx0 = GGML_CPU_FP16_TO_FP32(x0[i].d), dx1 = GGML_CPU_FP16_TO_FP32(x1[i].d);
        const v128_t scales = wasm_f32x4_make(dx0 * y0[i].d, dx1 * y0[i].d, dx0 * y1[i].d, dx1 * y1[i].d);
        const v128_t exact = sum_lanes_of_four(sums[0], sums[1], sums[2], sums[3]);
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(exact), scales));
    }
    store_two_by_two(s, bs, acc);
}

void ggml_vec_dot_q6_K_q8_K(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT vx, size_t bx, const void * GGML_RESTRICT vy, size_t by, int nrc) {
    const block_q6_K * GGML_RESTRICT x = vx;
    const block_q8_K * GGML_RESTRICT y = vy;
    const int nb = n / QK_K;
    if (nrc == 2) {
        q6_K_two_by_two(nb, s, bs, x, (const block_q6_K *)((const uint8_t *)vx + bx), y,
                        (const block_q8_K *)((const uint8_t *)vy + by));
        return;
    }
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
        const v128_t first = q6_K_half(x[i].ql, x[i].qh, q6_K_scales(&x[i], 0), y[i].qs);
        const v128_t second = q6_K_half(x[i].ql + 64, x[i].qh + 32, q6_K_scales(&x[i], 1), y[i].qs + 128);
        const v128_t exact = wasm_i32x4_add(first, second);
        const float d = GGML_CPU_FP16_TO_FP32(x[i].d) * y[i].d;
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(exact), wasm_f32x4_splat(d)));
    }
    *s = sum_of_lanes(acc);
}

// Q4_K: the other half of the offered Qwen file's feed-forward output rows. As for Q6_K, each
// 16 weights are scaled in 16-bit lanes (a 4-bit weight times a 6-bit scale fits) and the
// block's sums stay in one vector; the mins' part is two 16-bit dot products of the
// activations' group sums (q8_K's bsums) with the mins, each min in the two lanes of its
// group's two sums.
//
// A block: 8 groups of 32 weights, each with a 6-bit scale and a 6-bit min packed in 12 bytes
// (for j < 4, scale j and min j are the low six bits of bytes j and j + 4; for j >= 4, their
// low four bits are the low and high nibble of byte j + 4, their top two bits the top two of
// bytes j - 4 and j). Group j's weights are the low (j even) or high (j odd) nibbles of the
// 32 bytes of `qs` from 32(j / 2).
static inline void q4_K_scales_and_mins(const uint8_t * packed, v128_t * scales, v128_t * mins) {
    int16_t scale[8], min[8];
    for (int j = 0; j < 4; j++) {
        scale[j] = packed[j] & 63;
        min[j] = packed[j + 4] & 63;
        scale[j + 4] = (packed[j + 8] & 0x0F) | ((packed[j] >> 6) << 4);
        min[j + 4] = (packed[j + 8] >> 4) | ((packed[j + 4] >> 6) << 4);
    }
    *scales = wasm_v128_load(scale);
    *mins = wasm_v128_load(min);
}

// Σ over groups of min × the group's activation sum, as four partial sums.
static inline v128_t q4_K_min_part(v128_t mins, const int16_t * bsums) {
    const v128_t first = wasm_i16x8_shuffle(mins, mins, 0, 0, 1, 1, 2, 2, 3, 3);
    const v128_t second = wasm_i16x8_shuffle(mins, mins, 4, 4, 5, 5, 6, 6, 7, 7);
    return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_load(bsums), first),
                          wasm_i32x4_dot_i16x8(wasm_v128_load(bsums + 8), second));
}

// Weights 16h to 16h + 15 of group j (h = 0, 1), scaled.
#define Q4_K_SIXTEEN(j, h, qs, scales)                                                              \
    scaled16(wasm_v128_and(wasm_u16x8_shr(wasm_v128_load((qs) + 32 * ((j) / 2) + 16 * (h)), 4 * ((j) % 2)), \
                           wasm_i8x16_splat(0x0F)),                                                 \
             LANE(scales, j))

static inline v128_t q4_K_block(const block_q4_K * x, const block_q8_K * y, v128_t * min_part) {
    v128_t scales, mins;
    q4_K_scales_and_mins(x->scales, &scales, &mins);
    *min_part = q4_K_min_part(mins, y->bsums);
    v128_t sum = wasm_i32x4_splat(0);
#define Q4_K_STEP(j, h)                                              \
    {                                                                \
        const wide32 w = Q4_K_SIXTEEN(j, h, x->qs, scales);          \
        const wide32 a = wide16(y->qs + 32 * (j) + 16 * (h));        \
        sum = wasm_i32x4_add(sum, dot16(&w, &a));                    \
    }
    Q4_K_STEP(0, 0) Q4_K_STEP(0, 1) Q4_K_STEP(1, 0) Q4_K_STEP(1, 1) Q4_K_STEP(2, 0) Q4_K_STEP(2, 1)
    Q4_K_STEP(3, 0) Q4_K_STEP(3, 1) Q4_K_STEP(4, 0) Q4_K_STEP(4, 1) Q4_K_STEP(5, 0) Q4_K_STEP(5, 1)
    Q4_K_STEP(6, 0) Q4_K_STEP(6, 1) Q4_K_STEP(7, 0) Q4_K_STEP(7, 1)
#undef Q4_K_STEP
    return sum;
}

static void q4_K_two_by_two(int nb, float * s, size_t bs, const block_q4_K * x0, const block_q4_K * x1,
                            const block_q8_K * y0, const block_q8_K * y1) {
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
        v128_t scales0, mins0, scales1, mins1;
        q4_K_scales_and_mins(x0[i].scales, &scales0, &mins0);
        q4_K_scales_and_mins(x1[i].scales, &scales1, &mins1);
        v128_t sums[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
#define Q4_K_STEP(j, h)                                                    \
    {                                                                      \
        const wide32 a0 = wide16(y0[i].qs + 32 * (j) + 16 * (h));          \
        const wide32 a1 = wide16(y1[i].qs + 32 * (j) + 16 * (h));          \
        const wide32 w0 = Q4_K_SIXTEEN(j, h, x0[i].qs, scales0);           \
        sums[0] = wasm_i32x4_add(sums[0], dot16(&w0, &a0));                \
        sums[2] = wasm_i32x4_add(sums[2], dot16(&w0, &a1));                \
        const wide32 w1 = Q4_K_SIXTEEN(j, h, x1[i].qs, scales1);           \
        sums[1] = wasm_i32x4_add(sums[1], dot16(&w1, &a0));                \
        sums[3] = wasm_i32x4_add(sums[3], dot16(&w1, &a1));                \
    }
        Q4_K_STEP(0, 0) Q4_K_STEP(0, 1) Q4_K_STEP(1, 0) Q4_K_STEP(1, 1) Q4_K_STEP(2, 0) Q4_K_STEP(2, 1)
        Q4_K_STEP(3, 0) Q4_K_STEP(3, 1) Q4_K_STEP(4, 0) Q4_K_STEP(4, 1) Q4_K_STEP(5, 0) Q4_K_STEP(5, 1)
        Q4_K_STEP(6, 0) Q4_K_STEP(6, 1) Q4_K_STEP(7, 0) Q4_K_STEP(7, 1)
#undef Q4_K_STEP
        const v128_t exact = sum_lanes_of_four(sums[0], sums[1], sums[2], sums[3]);
        const v128_t min_exact = sum_lanes_of_four(q4_K_min_part(mins0, y0[i].bsums), q4_K_min_part(mins1, y0[i].bsums),
                                                   q4_K_min_part(mins0, y1[i].bsums), q4_K_min_part(mins1, y1[i].bsums));
        const float d0 = GGML_CPU_FP16_TO_FP32(x0[i].d), d1 = GGML_CPU_FP16_TO_FP32(x1[i].d);
        const float m0 = GGML_CPU_FP16_TO_FP32(x0[i].dmin), m1 = GGML_CPU_FP16_TO_FP32(x1[i].dmin);
        const v128_t dy = wasm_f32x4_make(y0[i].d, y0[i].d, y1[i].d, y1[i].d);
        const v128_t ds = wasm_f32x4_mul(wasm_f32x4_make(d0, d1, d0, d1), dy);
        const v128_t ms = wasm_f32x4_mul(wasm_f32x4_make(m0, m1, m0, m1), dy);
        acc = wasm_f32x4_add(acc, wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(exact), ds),
                                                 wasm_f32x4_mul(wasm_f32x4_convert_i32x4(min_exact), ms)));
    }
    store_two_by_two(s, bs, acc);
}

void ggml_vec_dot_q4_K_q8_K(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT vx, size_t bx, const void * GGML_RESTRICT vy, size_t by, int nrc) {
    const block_q4_K * GGML_RESTRICT x = vx;
    const block_q8_K * GGML_RESTRICT y = vy;
    const int nb = n / QK_K;
    if (nrc == 2) {
        q4_K_two_by_two(nb, s, bs, x, (const block_q4_K *)((const uint8_t *)vx + bx), y,
                        (const block_q8_K *)((const uint8_t *)vy + by));
        return;
    }
    v128_t acc = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < nb; i++) {
        v128_t min_part;
        const v128_t exact = q4_K_block(&x[i], &y[i], &min_part);
        const float d = GGML_CPU_FP16_TO_FP32(x[i].d) * y[i].d;
        const float dmin = GGML_CPU_FP16_TO_FP32(x[i].dmin) * y[i].d;
        acc = wasm_f32x4_add(acc, wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(exact), wasm_f32x4_splat(d)),
                                                 wasm_f32x4_mul(wasm_f32x4_convert_i32x4(min_part), wasm_f32x4_splat(dmin))));
    }
    *s = sum_of_lanes(acc);
}
