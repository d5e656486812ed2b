// Vector loads and stores that convert between a storage type (float,
// hwy::float16_t, hwy::bfloat16_t) and float32 lanes. Stores round to nearest,
// ties to even, exactly as the scalar conversions in core/dtype.h.
// Per-target include guard, as Highway requires for *-inl.h files.
#if defined(GRADOPS_CPU_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRADOPS_CPU_CONVERT_INL_H_
#undef GRADOPS_CPU_CONVERT_INL_H_
#else
#define GRADOPS_CPU_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gradops {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One element as float.
HWY_INLINE float LoadScalar(const float* p) { return *p; }
HWY_INLINE float LoadScalar(const hwy::bfloat16_t* p) {
  return BFloat16ToFloat(*reinterpret_cast<const uint16_t*>(p));
}
HWY_INLINE float LoadScalar(const hwy::float16_t* p) {
  return Float16ToFloat(*reinterpret_cast<const uint16_t*>(p));
}

template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const float* p) {
  return hn::LoadU(df, p);
}
template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const hwy::bfloat16_t* p) {
  const hn::Rebind<hwy::bfloat16_t, DF> dbf;
  return hn::PromoteTo(df, hn::LoadU(dbf, p));
}
template <class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const hwy::float16_t* p) {
#if (HWY_ARCH_X86 && HWY_TARGET >= HWY_SSE4) || HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR || \
    defined(HWY_DISABLE_F16C)
  // Without F16C Highway 1.0.3 widens arithmetically and turns infinities and
  // NaN into finite numbers; this is the same arithmetic with them.
  // Scalar math: exponent 0: mantissa * 2^-24; 31: all ones; else rebias by 112.
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p)));
  const auto exponent = hn::And(hn::ShiftRight<10>(bits), hn::Set(du32, 0x1Fu));
  const auto mantissa = hn::And(bits, hn::Set(du32, 0x3FFu));
  const auto subnormal =
      hn::BitCast(du32, hn::Mul(hn::ConvertTo(df, hn::BitCast(di32, mantissa)), hn::Set(df, 1.0f / 16777216)));
  const auto top = hn::Eq(exponent, hn::Set(du32, 0x1Fu));
  const auto exponent32 = hn::IfThenElse(top, hn::Set(du32, 0xFFu), hn::Add(exponent, hn::Set(du32, 112u)));
  const auto normal = hn::Or(hn::ShiftLeft<23>(exponent32), hn::ShiftLeft<13>(mantissa));
  const auto magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du32)), subnormal, normal);
  return hn::BitCast(df, hn::Or(hn::ShiftLeft<16>(hn::And(bits, hn::Set(du32, 0x8000u))), magnitude));
#else
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, p));
#endif
}

// Encode: float32 lanes as the storage type's bits (float32 lanes unchanged,
// 16-bit types as uint16 lanes), for plain or streaming stores.
template <class DF>
HWY_INLINE hn::Vec<DF> Encode(DF, hn::Vec<DF> v, const float*) {
  return v;
}

// bfloat16 bits of float lanes rounded to nearest, ties to even, in the
// upper half of each 32-bit lane (the lower half means nothing), NaN aside.
// Scalar math: bits + 0x8000, less 1 where the lower 17 bits are exactly
// 0x8000 (a tie whose kept bit is even); the same upper half as
// bits + 0x7FFF + ((bits >> 16) & 1), without shifts, which x86 cores run
// on fewer ports than additions and logic.
template <class DU32>
HWY_INLINE hn::Vec<DU32> RoundedBFloat16Bits(DU32 du32, hn::Vec<DU32> bits) {
  const auto down = hn::VecFromMask(du32, hn::Eq(hn::And(bits, hn::Set(du32, 0x1FFFFu)), hn::Set(du32, 0x8000u)));
  return hn::Add(hn::Add(bits, hn::Set(du32, 0x8000u)), down);  // down: all ones, -1
}

// NaN lanes of v as quiet NaN (bits | quiet bit), the others from `rounded`.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> QuietNaNs(DF df, hn::Vec<DF> v, hn::Vec<hn::RebindToUnsigned<DF>> rounded) {
  const hn::RebindToUnsigned<DF> du32;
  const auto quiet_nan = hn::Or(hn::BitCast(du32, v), hn::Set(du32, 0x00400000u));
  return hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), quiet_nan, rounded);
}

// bfloat16 bits of float lanes, in the upper half of each 32-bit lane.
// Scalar math: bits = bits + 0x7FFF + ((bits >> 16) & 1); NaN -> bits | quiet bit.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> RoundToBFloat16Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du32;
  return QuietNaNs(df, v, RoundedBFloat16Bits(du32, hn::BitCast(du32, v)));
}

// True where a lane of a or of b is NaN; elsewhere than on AVX2 also where
// a + b is NaN for inf + -inf, a false alarm that the NaN rule leaves
// unchanged. AVX2 compares the two vectors for unordered lanes in one
// instruction, which Highway 1.0.3 has no operation for; the sum and its
// comparison take two (in cache, bfloat16 LayerNorm and SiLU 2-5% faster
// with one: docs/performance.md, attempt 118).
template <class DF>
HWY_INLINE bool MayHoldNaN(DF df, hn::Vec<DF> a, hn::Vec<DF> b) {
#if HWY_TARGET == HWY_AVX2
  if constexpr (hn::MaxLanes(df) == 8) return _mm256_movemask_ps(_mm256_cmp_ps(a.raw, b.raw, _CMP_UNORD_Q)) != 0;
#endif
  return !hn::AllFalse(df, hn::IsNaN(hn::Add(a, b)));
}

// The same for two vectors, the NaN rule taken only when either holds a NaN:
// one test for the pair instead of a comparison and a blend per vector.
template <class DF, class VU = hn::Vec<hn::RebindToUnsigned<DF>>>
HWY_INLINE void RoundPairToBFloat16Bits(DF df, hn::Vec<DF> a, hn::Vec<DF> b, VU& ra, VU& rb) {
  const hn::RebindToUnsigned<DF> du32;
  ra = RoundedBFloat16Bits(du32, hn::BitCast(du32, a));
  rb = RoundedBFloat16Bits(du32, hn::BitCast(du32, b));
  if (HWY_UNLIKELY(MayHoldNaN(df, a, b))) {
    ra = QuietNaNs(df, a, ra);
    rb = QuietNaNs(df, b, rb);
  }
}

template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> Encode(DF df, hn::Vec<DF> v, const hwy::bfloat16_t*) {
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto out = hn::ShiftRight<16>(RoundToBFloat16Bits(df, v));
  return hn::DemoteTo(du16, hn::BitCast(di32, out));
}

template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> Encode(DF df, hn::Vec<DF> v, const hwy::float16_t*) {
  const hn::Rebind<uint16_t, DF> du16;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  // vcvtps2ph with rounding mode 0: nearest, ties to even.
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(du16, hn::DemoteTo(dh, v));
#else
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  HWY_ALIGN uint16_t out[hn::MaxLanes(df)];
  hn::Store(v, df, lanes);
  for (size_t i = 0; i < hn::Lanes(df); ++i) out[i] = FloatToFloat16(lanes[i]);
  return hn::Load(du16, out);
#endif
}

// The storage bits a T* points at: float, or uint16_t for 16-bit types.
template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, float, uint16_t>;

// v at p, plainly or streamed (non-temporal, bypassing the caches; p aligned
// to the vector's size; callers end a streaming pass with hwy::FlushStream).
// Vectors under 16 bytes (16-bit values on 128-bit targets) are always stored
// plainly: Highway 1.0.3 streams a whole 16 bytes for them, past the end.
template <class D, typename TBits>
HWY_INLINE void Put(D d, hn::Vec<D> v, TBits* p, bool stream) {
  constexpr bool kWhole = hn::MaxLanes(d) * sizeof(hn::TFromD<D>) >= 16;
  if (kWhole && stream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

template <class DF, typename T>
HWY_INLINE void StoreF32(DF df, hn::Vec<DF> v, T* p) {
  const auto e = Encode(df, v, static_cast<const T*>(p));
  Put(hn::DFromV<decltype(e)>(), e, reinterpret_cast<Bits<T>*>(p), false);
}

template <class DF, typename T>
HWY_INLINE void StreamF32(DF df, hn::Vec<DF> v, T* p) {
  const auto e = Encode(df, v, static_cast<const T*>(p));
  Put(hn::DFromV<decltype(e)>(), e, reinterpret_cast<Bits<T>*>(p), true);
}

// How a pair of float vectors is laid out as 2 * Lanes bfloat16: in order
// (a's values, then b's), or split as LoadPairF32 splits them.
enum class PairOrder { kOrdered, kSplit };

// The pair (a, b) rounded to bfloat16 by AVX512-BF16's vcvtne2ps2bf16 in
// `order`, where the target has 512-bit vectors and `native` says the CPU has
// the extension (BFloat16Instructions()): the rounding and NaN rule of
// Encode in one instruction. It flushes denormal inputs to zero, so a pair
// holding one returns false (nothing written) and takes the arithmetic path:
// the bits never depend on the CPU. Highway 1.0.3 has no target with the
// extension, hence the assembly.
template <PairOrder kOrder, class DF, class DU16 = hn::Repartition<uint16_t, DF>>
HWY_INLINE bool NarrowPairByInstruction(DF df, hn::Vec<DF> a, hn::Vec<DF> b, bool native, hn::Vec<DU16>* out) {
#if (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && HWY_ARCH_X86_64
  if constexpr (hn::MaxLanes(df) == 16) {
    constexpr int kDenormal = 0x20;  // vfpclassps category
    // (kortestw tests both masks in one instruction, where moving them to
    // general registers to test takes three.)
    if (!native ||
        !_kortestz_mask16_u8(_mm512_fpclass_ps_mask(a.raw, kDenormal), _mm512_fpclass_ps_mask(b.raw, kDenormal))) {
      return false;
    }
    __m512i both;  // a's values in the lower half; AT&T order names that source first
    __asm__("vcvtne2ps2bf16 %[lower], %[upper], %[out]" : [out] "=v"(both) : [lower] "v"(a.raw), [upper] "v"(b.raw));
    if constexpr (kOrder == PairOrder::kSplit) {  // value 2i is a's lane i, value 2i + 1 is b's
      alignas(64) static constexpr uint16_t kLanes[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                                          8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
      both = _mm512_permutexvar_epi16(_mm512_load_si512(kLanes), both);
    }
    out->raw = both;
    return true;
  }
#endif
  (void)df, (void)a, (void)b, (void)native, (void)out;
  return false;
}

#undef GRADOPS_BFLOAT16_PAIRS  // decided anew for each target
#if HWY_TARGET != HWY_SCALAR
#define GRADOPS_BFLOAT16_PAIRS 1
// bfloat16 by pairs of vectors: 2 * Lanes(df) values widened or narrowed
// together, with no lane crossing them. Each 32-bit lane holds two
// consecutive values, the first (little-endian: the lower half) widened by
// a shift, the second by a mask: `a` gets the values at even positions and
// `b` those at odd ones (split order), the same both ways, so elementwise
// code can use them as they come; operands that are not loaded this way
// (gamma) are kept in the same order. On x86: two instructions to widen a
// pair (four for two vectors widened alone) and two to narrow its rounded
// bits (four for ConcatOdd's shifts, pack and lane permute), none of them
// crossing lanes.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "split order takes the first value from a lane's lower half");
template <class DF>
HWY_INLINE void LoadPairF32(DF df, const hwy::bfloat16_t* p, hn::Vec<DF>& a, hn::Vec<DF>& b) {
  const hn::RebindToUnsigned<DF> du32;
  const auto v = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(p));
  a = hn::BitCast(df, hn::ShiftLeft<16>(v));
  b = hn::BitCast(df, hn::And(v, hn::Set(du32, 0xFFFF0000u)));
}

// The pair (a, b) rounded as Encode rounds, as 2 * Lanes(df) bfloat16 bits
// in split order (LoadPairF32's), one vector to store; `native`: by the
// CPU's instruction where it has one (same bits).
template <class DF, class DU16 = hn::Repartition<uint16_t, DF>>
HWY_INLINE hn::Vec<DU16> EncodeSplitPair(DF df, hn::Vec<DF> a, hn::Vec<DF> b, bool native) {
  const hn::RebindToUnsigned<DF> du32;
  hn::Vec<DU16> bits;
  if (NarrowPairByInstruction<PairOrder::kSplit>(df, a, b, native, &bits)) return bits;
  hn::Vec<decltype(du32)> ra, rb;
  RoundPairToBFloat16Bits(df, a, b, ra, rb);
  // (a's rounded bits shifted down into the lower halves, b's kept in the
  // upper: one blend of 16-bit lanes where a mask and an OR take two.)
  const DU16 du16;
  return hn::OddEven(hn::BitCast(du16, rb), hn::BitCast(du16, hn::ShiftRight<16>(ra)));
}

// The same stored at p (`stream`: non-temporally, p aligned to the vector size).
template <class DF>
HWY_INLINE void StorePairF32(DF df, hn::Vec<DF> a, hn::Vec<DF> b, hwy::bfloat16_t* p, bool stream, bool native) {
  Put(hn::Repartition<uint16_t, DF>(), EncodeSplitPair(df, a, b, native), reinterpret_cast<uint16_t*>(p), stream);
}
#endif

#undef GRADOPS_ORDERED_PAIRS  // decided anew for each target
#if HWY_TARGET != HWY_SCALAR
#define GRADOPS_ORDERED_PAIRS 1
// Two float vectors of consecutive values (a first) as 2 * Lanes(df)
// 16-bit values in order, one vector to store: whole cache lines where a
// float32 vector is one. bfloat16: ConcatOdd gathers the upper 16 bits of
// every rounded lane, one instruction where Encode spends a shift and a
// narrowing per vector; `native`: by the CPU's instruction where it has one
// (same bits). float16: the two halves joined.
template <class DF, class DU16 = hn::Repartition<uint16_t, DF>>
HWY_INLINE hn::Vec<DU16> EncodeOrderedPair(DF df, hn::Vec<DF> a, hn::Vec<DF> b, bool native,
                                           const hwy::bfloat16_t*) {
  const DU16 du16;
  hn::Vec<DU16> bits;
  if (NarrowPairByInstruction<PairOrder::kOrdered>(df, a, b, native, &bits)) return bits;
  hn::Vec<hn::RebindToUnsigned<DF>> ra, rb;
  RoundPairToBFloat16Bits(df, a, b, ra, rb);
  return hn::ConcatOdd(du16, hn::BitCast(du16, rb), hn::BitCast(du16, ra));
}

template <class DF, class DU16 = hn::Repartition<uint16_t, DF>>
HWY_INLINE hn::Vec<DU16> EncodeOrderedPair(DF df, hn::Vec<DF> a, hn::Vec<DF> b, bool, const hwy::float16_t* p) {
  return hn::Combine(DU16(), Encode(df, b, p), Encode(df, a, p));
}
#endif

// The same for the last n < Lanes(df) elements of a row: lanes past n load as
// zero and are not stored.
template <class DF, typename T>
HWY_INLINE hn::Vec<DF> LoadF32Tail(DF df, const T* p, size_t n) {
  HWY_ALIGN T buffer[hn::MaxLanes(df)] = {};
  std::memcpy(buffer, p, n * sizeof(T));
  return LoadF32(df, buffer);
}

template <class DF, typename T>
HWY_INLINE void StoreF32Tail(DF df, hn::Vec<DF> v, T* p, size_t n) {
  HWY_ALIGN T buffer[hn::MaxLanes(df)];
  StoreF32(df, v, buffer);
  std::memcpy(p, buffer, n * sizeof(T));
}

}  // namespace HWY_NAMESPACE
}  // namespace cpu
}  // namespace gradops
HWY_AFTER_NAMESPACE();

#endif  // GRADOPS_CPU_CONVERT_INL_H_
