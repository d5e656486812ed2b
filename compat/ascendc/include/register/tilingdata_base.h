// Host-side tiling classes: BEGIN_TILING_DATA_DEF(Name) ... END_TILING_DATA_DEF
// declares class Name with a public member, set_<field>() and get_<field>()
// per TILING_DATA_FIELD_DEF, nested tiling structs per
// TILING_DATA_FIELD_DEF_STRUCT, and SaveToBuffer / GetDataSize. The class
// holds its fields in declaration order with natural alignment, so its
// bytes are those of the plain struct a kernel declares with the same fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace optiling {

template <typename Derived>
class TilingDataSerializer {
 public:
  size_t GetDataSize() const { return sizeof(Derived); }

  // Writes the fields to `data`; logs and writes nothing when `capacity`
  // is too small.
  void SaveToBuffer(void* data, size_t capacity) const {
    static_assert(std::is_trivially_copyable<Derived>::value, "tiling classes hold plain data only");
    if (data == nullptr || capacity < sizeof(Derived)) {
      std::fprintf(stderr, "[ERROR] SaveToBuffer: %zu bytes of tiling data do not fit in a buffer of %zu bytes\n",
                   sizeof(Derived), data == nullptr ? size_t{0} : capacity);
      return;
    }
    std::memcpy(data, static_cast<const Derived*>(this), sizeof(Derived));
  }
};

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name) \
  class class_name : public ::optiling::TilingDataSerializer<class_name> { \
   public:

#define TILING_DATA_FIELD_DEF(type, field)          \
  type field{};                                     \
  void set_##field(type value) { field = value; }   \
  type get_##field() const { return field; }

#define TILING_DATA_FIELD_DEF_ARR(type, count, field)                                            \
  type field[count]{};                                                                           \
  void set_##field(const type* values) { std::memcpy(field, values, sizeof(type) * (count)); }  \
  type* get_##field() { return field; }

#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field{}

#define END_TILING_DATA_DEF }

// Ties a tiling class to an operator type. Kernels find their tiling data
// through GET_TILING_DATA / GET_TILING_DATA_WITH_STRUCT, so this only
// checks that the class can travel as bytes.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  static_assert(std::is_trivially_copyable<class_name>::value, #class_name " must hold plain data only");
