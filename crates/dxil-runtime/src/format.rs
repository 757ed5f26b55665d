//! Buffer view formats, named as DXGI names them (lower case, without the `DXGI_FORMAT_` prefix).

use ash::vk;

/// A typed-buffer element format.
///
/// Only the formats D3D12 allows for typed buffer views that also have a Vulkan texel-buffer
/// equivalent are listed; a case naming any other format is rejected when it is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    R32G32B32A32Float,
    R32G32B32A32Uint,
    R32G32B32A32Sint,
    R32G32B32Float,
    R32G32B32Uint,
    R32G32B32Sint,
    R16G16B16A16Float,
    R16G16B16A16Unorm,
    R16G16B16A16Uint,
    R16G16B16A16Snorm,
    R16G16B16A16Sint,
    R32G32Float,
    R32G32Uint,
    R32G32Sint,
    R10G10B10A2Unorm,
    R10G10B10A2Uint,
    R11G11B10Float,
    R8G8B8A8Unorm,
    R8G8B8A8Uint,
    R8G8B8A8Snorm,
    R8G8B8A8Sint,
    B8G8R8A8Unorm,
    R16G16Float,
    R16G16Unorm,
    R16G16Uint,
    R16G16Snorm,
    R16G16Sint,
    R32Float,
    R32Uint,
    R32Sint,
    R8G8Unorm,
    R8G8Uint,
    R8G8Snorm,
    R8G8Sint,
    R16Float,
    R16Unorm,
    R16Uint,
    R16Snorm,
    R16Sint,
    R8Unorm,
    R8Uint,
    R8Snorm,
    R8Sint,
}

/// (case-file name, format, element size in bytes, Vulkan format)
const TABLE: &[(&str, Format, u32, vk::Format)] = &[
    (
        "r32g32b32a32_float",
        Format::R32G32B32A32Float,
        16,
        vk::Format::R32G32B32A32_SFLOAT,
    ),
    (
        "r32g32b32a32_uint",
        Format::R32G32B32A32Uint,
        16,
        vk::Format::R32G32B32A32_UINT,
    ),
    (
        "r32g32b32a32_sint",
        Format::R32G32B32A32Sint,
        16,
        vk::Format::R32G32B32A32_SINT,
    ),
    (
        "r32g32b32_float",
        Format::R32G32B32Float,
        12,
        vk::Format::R32G32B32_SFLOAT,
    ),
    (
        "r32g32b32_uint",
        Format::R32G32B32Uint,
        12,
        vk::Format::R32G32B32_UINT,
    ),
    (
        "r32g32b32_sint",
        Format::R32G32B32Sint,
        12,
        vk::Format::R32G32B32_SINT,
    ),
    (
        "r16g16b16a16_float",
        Format::R16G16B16A16Float,
        8,
        vk::Format::R16G16B16A16_SFLOAT,
    ),
    (
        "r16g16b16a16_unorm",
        Format::R16G16B16A16Unorm,
        8,
        vk::Format::R16G16B16A16_UNORM,
    ),
    (
        "r16g16b16a16_uint",
        Format::R16G16B16A16Uint,
        8,
        vk::Format::R16G16B16A16_UINT,
    ),
    (
        "r16g16b16a16_snorm",
        Format::R16G16B16A16Snorm,
        8,
        vk::Format::R16G16B16A16_SNORM,
    ),
    (
        "r16g16b16a16_sint",
        Format::R16G16B16A16Sint,
        8,
        vk::Format::R16G16B16A16_SINT,
    ),
    (
        "r32g32_float",
        Format::R32G32Float,
        8,
        vk::Format::R32G32_SFLOAT,
    ),
    (
        "r32g32_uint",
        Format::R32G32Uint,
        8,
        vk::Format::R32G32_UINT,
    ),
    (
        "r32g32_sint",
        Format::R32G32Sint,
        8,
        vk::Format::R32G32_SINT,
    ),
    // DXGI names components from the least significant bits up; Vulkan's packed formats name them
    // from the most significant bits down, hence the reversed names.
    (
        "r10g10b10a2_unorm",
        Format::R10G10B10A2Unorm,
        4,
        vk::Format::A2B10G10R10_UNORM_PACK32,
    ),
    (
        "r10g10b10a2_uint",
        Format::R10G10B10A2Uint,
        4,
        vk::Format::A2B10G10R10_UINT_PACK32,
    ),
    (
        "r11g11b10_float",
        Format::R11G11B10Float,
        4,
        vk::Format::B10G11R11_UFLOAT_PACK32,
    ),
    (
        "r8g8b8a8_unorm",
        Format::R8G8B8A8Unorm,
        4,
        vk::Format::R8G8B8A8_UNORM,
    ),
    (
        "r8g8b8a8_uint",
        Format::R8G8B8A8Uint,
        4,
        vk::Format::R8G8B8A8_UINT,
    ),
    (
        "r8g8b8a8_snorm",
        Format::R8G8B8A8Snorm,
        4,
        vk::Format::R8G8B8A8_SNORM,
    ),
    (
        "r8g8b8a8_sint",
        Format::R8G8B8A8Sint,
        4,
        vk::Format::R8G8B8A8_SINT,
    ),
    (
        "b8g8r8a8_unorm",
        Format::B8G8R8A8Unorm,
        4,
        vk::Format::B8G8R8A8_UNORM,
    ),
    (
        "r16g16_float",
        Format::R16G16Float,
        4,
        vk::Format::R16G16_SFLOAT,
    ),
    (
        "r16g16_unorm",
        Format::R16G16Unorm,
        4,
        vk::Format::R16G16_UNORM,
    ),
    (
        "r16g16_uint",
        Format::R16G16Uint,
        4,
        vk::Format::R16G16_UINT,
    ),
    (
        "r16g16_snorm",
        Format::R16G16Snorm,
        4,
        vk::Format::R16G16_SNORM,
    ),
    (
        "r16g16_sint",
        Format::R16G16Sint,
        4,
        vk::Format::R16G16_SINT,
    ),
    ("r32_float", Format::R32Float, 4, vk::Format::R32_SFLOAT),
    ("r32_uint", Format::R32Uint, 4, vk::Format::R32_UINT),
    ("r32_sint", Format::R32Sint, 4, vk::Format::R32_SINT),
    ("r8g8_unorm", Format::R8G8Unorm, 2, vk::Format::R8G8_UNORM),
    ("r8g8_uint", Format::R8G8Uint, 2, vk::Format::R8G8_UINT),
    ("r8g8_snorm", Format::R8G8Snorm, 2, vk::Format::R8G8_SNORM),
    ("r8g8_sint", Format::R8G8Sint, 2, vk::Format::R8G8_SINT),
    ("r16_float", Format::R16Float, 2, vk::Format::R16_SFLOAT),
    ("r16_unorm", Format::R16Unorm, 2, vk::Format::R16_UNORM),
    ("r16_uint", Format::R16Uint, 2, vk::Format::R16_UINT),
    ("r16_snorm", Format::R16Snorm, 2, vk::Format::R16_SNORM),
    ("r16_sint", Format::R16Sint, 2, vk::Format::R16_SINT),
    ("r8_unorm", Format::R8Unorm, 1, vk::Format::R8_UNORM),
    ("r8_uint", Format::R8Uint, 1, vk::Format::R8_UINT),
    ("r8_snorm", Format::R8Snorm, 1, vk::Format::R8_SNORM),
    ("r8_sint", Format::R8Sint, 1, vk::Format::R8_SINT),
];

impl Format {
    /// Looks a format up by its case-file name (`"r32_uint"`).
    pub fn from_name(name: &str) -> Option<Format> {
        TABLE.iter().find(|e| e.0 == name).map(|e| e.1)
    }

    fn entry(self) -> &'static (&'static str, Format, u32, vk::Format) {
        // Every variant has a row; the fallback is never taken but keeps this panic-free.
        TABLE.iter().find(|e| e.1 == self).unwrap_or(&TABLE[0])
    }

    /// The case-file name.
    pub fn name(self) -> &'static str {
        self.entry().0
    }

    /// Bytes per element.
    pub fn size(self) -> u32 {
        self.entry().2
    }

    /// The Vulkan format a texel buffer view of this format uses.
    pub fn to_vk(self) -> vk::Format {
        self.entry().3
    }

    /// The format for a texel buffer whose shader declaration names `format`, used when a case
    /// gives no format of its own (raw or structured resources read through texel buffers).
    pub(crate) fn from_spirv(format: spirv::ImageFormat) -> Option<Format> {
        use spirv::ImageFormat as F;
        Some(match format {
            F::Rgba32f => Format::R32G32B32A32Float,
            F::Rgba32ui => Format::R32G32B32A32Uint,
            F::Rgba32i => Format::R32G32B32A32Sint,
            F::Rgba16f => Format::R16G16B16A16Float,
            F::Rgba16 => Format::R16G16B16A16Unorm,
            F::Rgba16ui => Format::R16G16B16A16Uint,
            F::Rgba16Snorm => Format::R16G16B16A16Snorm,
            F::Rgba16i => Format::R16G16B16A16Sint,
            F::Rg32f => Format::R32G32Float,
            F::Rg32ui => Format::R32G32Uint,
            F::Rg32i => Format::R32G32Sint,
            F::Rgb10A2 => Format::R10G10B10A2Unorm,
            F::Rgb10a2ui => Format::R10G10B10A2Uint,
            F::R11fG11fB10f => Format::R11G11B10Float,
            F::Rgba8 => Format::R8G8B8A8Unorm,
            F::Rgba8ui => Format::R8G8B8A8Uint,
            F::Rgba8Snorm => Format::R8G8B8A8Snorm,
            F::Rgba8i => Format::R8G8B8A8Sint,
            F::Rg16f => Format::R16G16Float,
            F::Rg16 => Format::R16G16Unorm,
            F::Rg16ui => Format::R16G16Uint,
            F::Rg16Snorm => Format::R16G16Snorm,
            F::Rg16i => Format::R16G16Sint,
            F::R32f => Format::R32Float,
            F::R32ui => Format::R32Uint,
            F::R32i => Format::R32Sint,
            F::Rg8 => Format::R8G8Unorm,
            F::Rg8ui => Format::R8G8Uint,
            F::Rg8Snorm => Format::R8G8Snorm,
            F::Rg8i => Format::R8G8Sint,
            F::R16f => Format::R16Float,
            F::R16 => Format::R16Unorm,
            F::R16ui => Format::R16Uint,
            F::R16Snorm => Format::R16Snorm,
            F::R16i => Format::R16Sint,
            F::R8 => Format::R8Unorm,
            F::R8ui => Format::R8Uint,
            F::R8Snorm => Format::R8Snorm,
            F::R8i => Format::R8Sint,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes_are_sane() {
        for &(name, format, size, vk_format) in TABLE {
            assert_eq!(Format::from_name(name), Some(format));
            assert_eq!(format.name(), name);
            assert_eq!(format.size(), size);
            assert_eq!(format.to_vk(), vk_format);
        }
        assert_eq!(Format::from_name("R32_UINT"), None);
        assert_eq!(Format::from_name("r24g8_typeless"), None);
    }

    #[test]
    fn spirv_formats_map_to_same_size_formats() {
        assert_eq!(
            Format::from_spirv(spirv::ImageFormat::R32ui),
            Some(Format::R32Uint)
        );
        assert_eq!(
            Format::from_spirv(spirv::ImageFormat::Rgba32f).map(Format::size),
            Some(16)
        );
        assert_eq!(Format::from_spirv(spirv::ImageFormat::Unknown), None);
    }
}
