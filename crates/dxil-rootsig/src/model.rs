//! The root signature model: plain data mirroring `D3D12_VERSIONED_ROOT_SIGNATURE_DESC`.
//!
//! One model covers versions 1.0, 1.1 and 1.2. Fields that a version cannot express keep a
//! fixed value, so that equality means "describes the same root signature":
//! * version 1.0 has no range or root-descriptor flags; the fields hold the flags D3D implies
//!   for 1.0 (see [`DescriptorRangeFlags::implied_v1_0`], [`RootDescriptorFlags::IMPLIED_V1_0`]);
//! * versions before 1.2 have no static-sampler flags; the field is [`SamplerFlags::NONE`].
//!
//! The reader, the HLSL parser and the converter keep these invariants; [`crate::validate()`]
//! reports a model that breaks them (for example one built by hand).

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use std::fmt;

/// Defines a closed D3D enumeration with its numeric value, its D3D name (serialized form) and
/// its HLSL keyword ("" where the HLSL grammar of DXC has none).
macro_rules! d3d_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $d3d:literal, $hlsl:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The value as stored in the binary format.
            pub const fn to_u32(self) -> u32 {
                match self { $( $name::$variant => $value, )* }
            }

            /// The value for a binary code, `None` for codes D3D does not define.
            pub const fn from_u32(value: u32) -> Option<Self> {
                match value { $( $value => Some($name::$variant), )* _ => None }
            }

            /// The D3D enumerator name (also the serialized form).
            pub const fn d3d_name(self) -> &'static str {
                match self { $( $name::$variant => $d3d, )* }
            }

            /// The keyword of the HLSL root-signature grammar, where DXC has one.
            pub fn hlsl_keyword(self) -> Option<&'static str> {
                let keyword = match self { $( $name::$variant => $hlsl, )* };
                if keyword.is_empty() { None } else { Some(keyword) }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.d3d_name())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.d3d_name())
            }
        }
    };
}

pub(crate) use d3d_enum;

/// Defines a D3D flag set over `u32`. Unknown bits are kept (so that a blob reads back exactly)
/// and reported by validation.
macro_rules! d3d_flags {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* const $flag:ident = $value:literal => $d3d:literal, $hlsl:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// No flag set.
            pub const NONE: Self = Self(0);
            $( $(#[$fmeta])* pub const $flag: Self = Self($value); )*
            /// Every flag D3D defines for this type.
            pub const VALID: Self = Self(0 $( | $value )*);
            /// `(flag, D3D name, HLSL keyword or "")` for every defined flag.
            pub const NAMED: &'static [(Self, &'static str, &'static str)] =
                &[ $( (Self($value), $d3d, $hlsl), )* ];

            /// The raw bits.
            pub const fn bits(self) -> u32 { self.0 }
            /// Whether no bit is set.
            pub const fn is_empty(self) -> bool { self.0 == 0 }
            /// Whether every bit of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            /// Whether any bit of `other` is set in `self`.
            pub const fn intersects(self, other: Self) -> bool { self.0 & other.0 != 0 }
            /// Bits that D3D does not define for this type.
            pub const fn unknown_bits(self) -> u32 { self.0 & !Self::VALID.0 }

            /// Names of the set flags (D3D names), then unknown bits as hexadecimal numbers.
            pub fn names(self) -> Vec<String> {
                let mut out: Vec<String> = Self::NAMED
                    .iter()
                    .filter(|(flag, _, _)| self.contains(*flag))
                    .map(|(_, name, _)| (*name).to_string())
                    .collect();
                if self.unknown_bits() != 0 {
                    out.push(format!("{:#x}", self.unknown_bits()));
                }
                out
            }
        }

        impl std::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self { Self(self.0 | rhs.0) }
        }
        impl std::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: Self) { self.0 |= rhs.0; }
        }
        impl std::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self { Self(self.0 & rhs.0) }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.is_empty() {
                    return write!(f, "{}(NONE)", stringify!($name));
                }
                write!(f, "{}({})", stringify!($name), self.names().join(" | "))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let names = self.names();
                let mut seq = serializer.serialize_seq(Some(names.len()))?;
                for name in &names {
                    seq.serialize_element(name)?;
                }
                seq.end()
            }
        }
    };
}

d3d_enum! {
    /// `D3D_ROOT_SIGNATURE_VERSION`; the first word of an RTS0 payload.
    pub enum Version {
        V1_0 = 1 => "D3D_ROOT_SIGNATURE_VERSION_1_0", "rootsig_1_0";
        V1_1 = 2 => "D3D_ROOT_SIGNATURE_VERSION_1_1", "rootsig_1_1";
        V1_2 = 3 => "D3D_ROOT_SIGNATURE_VERSION_1_2", "";
    }
}

impl Version {
    /// "1.0", "1.1" or "1.2".
    pub const fn short_name(self) -> &'static str {
        match self {
            Version::V1_0 => "1.0",
            Version::V1_1 => "1.1",
            Version::V1_2 => "1.2",
        }
    }
}

d3d_enum! {
    /// `D3D12_SHADER_VISIBILITY`: which shader stages see a root parameter or static sampler.
    pub enum ShaderVisibility {
        All = 0 => "D3D12_SHADER_VISIBILITY_ALL", "SHADER_VISIBILITY_ALL";
        Vertex = 1 => "D3D12_SHADER_VISIBILITY_VERTEX", "SHADER_VISIBILITY_VERTEX";
        Hull = 2 => "D3D12_SHADER_VISIBILITY_HULL", "SHADER_VISIBILITY_HULL";
        Domain = 3 => "D3D12_SHADER_VISIBILITY_DOMAIN", "SHADER_VISIBILITY_DOMAIN";
        Geometry = 4 => "D3D12_SHADER_VISIBILITY_GEOMETRY", "SHADER_VISIBILITY_GEOMETRY";
        Pixel = 5 => "D3D12_SHADER_VISIBILITY_PIXEL", "SHADER_VISIBILITY_PIXEL";
        Amplification = 6 => "D3D12_SHADER_VISIBILITY_AMPLIFICATION", "SHADER_VISIBILITY_AMPLIFICATION";
        Mesh = 7 => "D3D12_SHADER_VISIBILITY_MESH", "SHADER_VISIBILITY_MESH";
    }
}

d3d_enum! {
    /// `D3D12_ROOT_PARAMETER_TYPE`. The HLSL keyword is the clause that declares it.
    pub enum ParameterType {
        DescriptorTable = 0 => "D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE", "DescriptorTable";
        Constants32Bit = 1 => "D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS", "RootConstants";
        Cbv = 2 => "D3D12_ROOT_PARAMETER_TYPE_CBV", "CBV";
        Srv = 3 => "D3D12_ROOT_PARAMETER_TYPE_SRV", "SRV";
        Uav = 4 => "D3D12_ROOT_PARAMETER_TYPE_UAV", "UAV";
    }
}

d3d_enum! {
    /// `D3D12_DESCRIPTOR_RANGE_TYPE`. The HLSL keyword is the range clause inside a table.
    pub enum RangeType {
        Srv = 0 => "D3D12_DESCRIPTOR_RANGE_TYPE_SRV", "SRV";
        Uav = 1 => "D3D12_DESCRIPTOR_RANGE_TYPE_UAV", "UAV";
        Cbv = 2 => "D3D12_DESCRIPTOR_RANGE_TYPE_CBV", "CBV";
        Sampler = 3 => "D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER", "Sampler";
    }
}

impl RangeType {
    /// The HLSL register letter of this class (`t`, `u`, `b`, `s`).
    pub const fn register_letter(self) -> char {
        match self {
            RangeType::Srv => 't',
            RangeType::Uav => 'u',
            RangeType::Cbv => 'b',
            RangeType::Sampler => 's',
        }
    }
}

/// The register class a shader binds through (`t`, `u`, `b`, `s`); the same four classes as
/// descriptor ranges.
pub type RegisterClass = RangeType;

d3d_enum! {
    /// `D3D12_FILTER`. The four `*_MIN_MAG_ANISOTROPIC_MIP_POINT` values are newer than DXC's
    /// HLSL grammar and have no keyword there.
    pub enum Filter {
        MinMagMipPoint = 0x0 => "D3D12_FILTER_MIN_MAG_MIP_POINT", "FILTER_MIN_MAG_MIP_POINT";
        MinMagPointMipLinear = 0x1 => "D3D12_FILTER_MIN_MAG_POINT_MIP_LINEAR", "FILTER_MIN_MAG_POINT_MIP_LINEAR";
        MinPointMagLinearMipPoint = 0x4 => "D3D12_FILTER_MIN_POINT_MAG_LINEAR_MIP_POINT", "FILTER_MIN_POINT_MAG_LINEAR_MIP_POINT";
        MinPointMagMipLinear = 0x5 => "D3D12_FILTER_MIN_POINT_MAG_MIP_LINEAR", "FILTER_MIN_POINT_MAG_MIP_LINEAR";
        MinLinearMagMipPoint = 0x10 => "D3D12_FILTER_MIN_LINEAR_MAG_MIP_POINT", "FILTER_MIN_LINEAR_MAG_MIP_POINT";
        MinLinearMagPointMipLinear = 0x11 => "D3D12_FILTER_MIN_LINEAR_MAG_POINT_MIP_LINEAR", "FILTER_MIN_LINEAR_MAG_POINT_MIP_LINEAR";
        MinMagLinearMipPoint = 0x14 => "D3D12_FILTER_MIN_MAG_LINEAR_MIP_POINT", "FILTER_MIN_MAG_LINEAR_MIP_POINT";
        MinMagMipLinear = 0x15 => "D3D12_FILTER_MIN_MAG_MIP_LINEAR", "FILTER_MIN_MAG_MIP_LINEAR";
        MinMagAnisotropicMipPoint = 0x54 => "D3D12_FILTER_MIN_MAG_ANISOTROPIC_MIP_POINT", "";
        Anisotropic = 0x55 => "D3D12_FILTER_ANISOTROPIC", "FILTER_ANISOTROPIC";
        ComparisonMinMagMipPoint = 0x80 => "D3D12_FILTER_COMPARISON_MIN_MAG_MIP_POINT", "FILTER_COMPARISON_MIN_MAG_MIP_POINT";
        ComparisonMinMagPointMipLinear = 0x81 => "D3D12_FILTER_COMPARISON_MIN_MAG_POINT_MIP_LINEAR", "FILTER_COMPARISON_MIN_MAG_POINT_MIP_LINEAR";
        ComparisonMinPointMagLinearMipPoint = 0x84 => "D3D12_FILTER_COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT", "FILTER_COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT";
        ComparisonMinPointMagMipLinear = 0x85 => "D3D12_FILTER_COMPARISON_MIN_POINT_MAG_MIP_LINEAR", "FILTER_COMPARISON_MIN_POINT_MAG_MIP_LINEAR";
        ComparisonMinLinearMagMipPoint = 0x90 => "D3D12_FILTER_COMPARISON_MIN_LINEAR_MAG_MIP_POINT", "FILTER_COMPARISON_MIN_LINEAR_MAG_MIP_POINT";
        ComparisonMinLinearMagPointMipLinear = 0x91 => "D3D12_FILTER_COMPARISON_MIN_LINEAR_MAG_POINT_MIP_LINEAR", "FILTER_COMPARISON_MIN_LINEAR_MAG_POINT_MIP_LINEAR";
        ComparisonMinMagLinearMipPoint = 0x94 => "D3D12_FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT", "FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT";
        ComparisonMinMagMipLinear = 0x95 => "D3D12_FILTER_COMPARISON_MIN_MAG_MIP_LINEAR", "FILTER_COMPARISON_MIN_MAG_MIP_LINEAR";
        ComparisonMinMagAnisotropicMipPoint = 0xd4 => "D3D12_FILTER_COMPARISON_MIN_MAG_ANISOTROPIC_MIP_POINT", "";
        ComparisonAnisotropic = 0xd5 => "D3D12_FILTER_COMPARISON_ANISOTROPIC", "FILTER_COMPARISON_ANISOTROPIC";
        MinimumMinMagMipPoint = 0x100 => "D3D12_FILTER_MINIMUM_MIN_MAG_MIP_POINT", "FILTER_MINIMUM_MIN_MAG_MIP_POINT";
        MinimumMinMagPointMipLinear = 0x101 => "D3D12_FILTER_MINIMUM_MIN_MAG_POINT_MIP_LINEAR", "FILTER_MINIMUM_MIN_MAG_POINT_MIP_LINEAR";
        MinimumMinPointMagLinearMipPoint = 0x104 => "D3D12_FILTER_MINIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT", "FILTER_MINIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT";
        MinimumMinPointMagMipLinear = 0x105 => "D3D12_FILTER_MINIMUM_MIN_POINT_MAG_MIP_LINEAR", "FILTER_MINIMUM_MIN_POINT_MAG_MIP_LINEAR";
        MinimumMinLinearMagMipPoint = 0x110 => "D3D12_FILTER_MINIMUM_MIN_LINEAR_MAG_MIP_POINT", "FILTER_MINIMUM_MIN_LINEAR_MAG_MIP_POINT";
        MinimumMinLinearMagPointMipLinear = 0x111 => "D3D12_FILTER_MINIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR", "FILTER_MINIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR";
        MinimumMinMagLinearMipPoint = 0x114 => "D3D12_FILTER_MINIMUM_MIN_MAG_LINEAR_MIP_POINT", "FILTER_MINIMUM_MIN_MAG_LINEAR_MIP_POINT";
        MinimumMinMagMipLinear = 0x115 => "D3D12_FILTER_MINIMUM_MIN_MAG_MIP_LINEAR", "FILTER_MINIMUM_MIN_MAG_MIP_LINEAR";
        MinimumMinMagAnisotropicMipPoint = 0x154 => "D3D12_FILTER_MINIMUM_MIN_MAG_ANISOTROPIC_MIP_POINT", "";
        MinimumAnisotropic = 0x155 => "D3D12_FILTER_MINIMUM_ANISOTROPIC", "FILTER_MINIMUM_ANISOTROPIC";
        MaximumMinMagMipPoint = 0x180 => "D3D12_FILTER_MAXIMUM_MIN_MAG_MIP_POINT", "FILTER_MAXIMUM_MIN_MAG_MIP_POINT";
        MaximumMinMagPointMipLinear = 0x181 => "D3D12_FILTER_MAXIMUM_MIN_MAG_POINT_MIP_LINEAR", "FILTER_MAXIMUM_MIN_MAG_POINT_MIP_LINEAR";
        MaximumMinPointMagLinearMipPoint = 0x184 => "D3D12_FILTER_MAXIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT", "FILTER_MAXIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT";
        MaximumMinPointMagMipLinear = 0x185 => "D3D12_FILTER_MAXIMUM_MIN_POINT_MAG_MIP_LINEAR", "FILTER_MAXIMUM_MIN_POINT_MAG_MIP_LINEAR";
        MaximumMinLinearMagMipPoint = 0x190 => "D3D12_FILTER_MAXIMUM_MIN_LINEAR_MAG_MIP_POINT", "FILTER_MAXIMUM_MIN_LINEAR_MAG_MIP_POINT";
        MaximumMinLinearMagPointMipLinear = 0x191 => "D3D12_FILTER_MAXIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR", "FILTER_MAXIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR";
        MaximumMinMagLinearMipPoint = 0x194 => "D3D12_FILTER_MAXIMUM_MIN_MAG_LINEAR_MIP_POINT", "FILTER_MAXIMUM_MIN_MAG_LINEAR_MIP_POINT";
        MaximumMinMagMipLinear = 0x195 => "D3D12_FILTER_MAXIMUM_MIN_MAG_MIP_LINEAR", "FILTER_MAXIMUM_MIN_MAG_MIP_LINEAR";
        MaximumMinMagAnisotropicMipPoint = 0x1d4 => "D3D12_FILTER_MAXIMUM_MIN_MAG_ANISOTROPIC_MIP_POINT", "";
        MaximumAnisotropic = 0x1d5 => "D3D12_FILTER_MAXIMUM_ANISOTROPIC", "FILTER_MAXIMUM_ANISOTROPIC";
    }
}

impl Filter {
    /// Whether this is a comparison filter (reduction bits 8..7 == 1), which makes
    /// `ComparisonFunc` meaningful.
    pub const fn is_comparison(self) -> bool {
        (self.to_u32() >> 7) & 3 == 1
    }
}

d3d_enum! {
    /// `D3D12_TEXTURE_ADDRESS_MODE`.
    pub enum TextureAddressMode {
        Wrap = 1 => "D3D12_TEXTURE_ADDRESS_MODE_WRAP", "TEXTURE_ADDRESS_WRAP";
        Mirror = 2 => "D3D12_TEXTURE_ADDRESS_MODE_MIRROR", "TEXTURE_ADDRESS_MIRROR";
        Clamp = 3 => "D3D12_TEXTURE_ADDRESS_MODE_CLAMP", "TEXTURE_ADDRESS_CLAMP";
        Border = 4 => "D3D12_TEXTURE_ADDRESS_MODE_BORDER", "TEXTURE_ADDRESS_BORDER";
        MirrorOnce = 5 => "D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE", "TEXTURE_ADDRESS_MIRROR_ONCE";
    }
}

d3d_enum! {
    /// `D3D12_COMPARISON_FUNC`. `NONE` (0) is newer than DXC's grammar.
    pub enum ComparisonFunc {
        None = 0 => "D3D12_COMPARISON_FUNC_NONE", "";
        Never = 1 => "D3D12_COMPARISON_FUNC_NEVER", "COMPARISON_NEVER";
        Less = 2 => "D3D12_COMPARISON_FUNC_LESS", "COMPARISON_LESS";
        Equal = 3 => "D3D12_COMPARISON_FUNC_EQUAL", "COMPARISON_EQUAL";
        LessEqual = 4 => "D3D12_COMPARISON_FUNC_LESS_EQUAL", "COMPARISON_LESS_EQUAL";
        Greater = 5 => "D3D12_COMPARISON_FUNC_GREATER", "COMPARISON_GREATER";
        NotEqual = 6 => "D3D12_COMPARISON_FUNC_NOT_EQUAL", "COMPARISON_NOT_EQUAL";
        GreaterEqual = 7 => "D3D12_COMPARISON_FUNC_GREATER_EQUAL", "COMPARISON_GREATER_EQUAL";
        Always = 8 => "D3D12_COMPARISON_FUNC_ALWAYS", "COMPARISON_ALWAYS";
    }
}

d3d_enum! {
    /// `D3D12_STATIC_BORDER_COLOR`.
    pub enum StaticBorderColor {
        TransparentBlack = 0 => "D3D12_STATIC_BORDER_COLOR_TRANSPARENT_BLACK", "STATIC_BORDER_COLOR_TRANSPARENT_BLACK";
        OpaqueBlack = 1 => "D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK", "STATIC_BORDER_COLOR_OPAQUE_BLACK";
        OpaqueWhite = 2 => "D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE", "STATIC_BORDER_COLOR_OPAQUE_WHITE";
        OpaqueBlackUint = 3 => "D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT", "STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT";
        OpaqueWhiteUint = 4 => "D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT", "STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT";
    }
}

d3d_flags! {
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    pub struct RootSignatureFlags {
        const ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT = 0x1 => "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT", "ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT";
        const DENY_VERTEX_SHADER_ROOT_ACCESS = 0x2 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_VERTEX_SHADER_ROOT_ACCESS", "DENY_VERTEX_SHADER_ROOT_ACCESS";
        const DENY_HULL_SHADER_ROOT_ACCESS = 0x4 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_HULL_SHADER_ROOT_ACCESS", "DENY_HULL_SHADER_ROOT_ACCESS";
        const DENY_DOMAIN_SHADER_ROOT_ACCESS = 0x8 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_DOMAIN_SHADER_ROOT_ACCESS", "DENY_DOMAIN_SHADER_ROOT_ACCESS";
        const DENY_GEOMETRY_SHADER_ROOT_ACCESS = 0x10 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_GEOMETRY_SHADER_ROOT_ACCESS", "DENY_GEOMETRY_SHADER_ROOT_ACCESS";
        const DENY_PIXEL_SHADER_ROOT_ACCESS = 0x20 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_PIXEL_SHADER_ROOT_ACCESS", "DENY_PIXEL_SHADER_ROOT_ACCESS";
        const ALLOW_STREAM_OUTPUT = 0x40 => "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT", "ALLOW_STREAM_OUTPUT";
        const LOCAL_ROOT_SIGNATURE = 0x80 => "D3D12_ROOT_SIGNATURE_FLAG_LOCAL_ROOT_SIGNATURE", "LOCAL_ROOT_SIGNATURE";
        const DENY_AMPLIFICATION_SHADER_ROOT_ACCESS = 0x100 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_AMPLIFICATION_SHADER_ROOT_ACCESS", "DENY_AMPLIFICATION_SHADER_ROOT_ACCESS";
        const DENY_MESH_SHADER_ROOT_ACCESS = 0x200 => "D3D12_ROOT_SIGNATURE_FLAG_DENY_MESH_SHADER_ROOT_ACCESS", "DENY_MESH_SHADER_ROOT_ACCESS";
        const CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED = 0x400 => "D3D12_ROOT_SIGNATURE_FLAG_CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED";
        const SAMPLER_HEAP_DIRECTLY_INDEXED = 0x800 => "D3D12_ROOT_SIGNATURE_FLAG_SAMPLER_HEAP_DIRECTLY_INDEXED", "SAMPLER_HEAP_DIRECTLY_INDEXED";
        /// Only DXC knows this bit; it has no HLSL keyword.
        const ALLOW_LOW_TIER_RESERVED_HW_CB_LIMIT = 0x80000000 => "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_LOW_TIER_RESERVED_HW_CB_LIMIT", "";
    }
}

d3d_flags! {
    /// `D3D12_DESCRIPTOR_RANGE_FLAGS` (versions 1.1 and 1.2).
    pub struct DescriptorRangeFlags {
        const DESCRIPTORS_VOLATILE = 0x1 => "D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE", "DESCRIPTORS_VOLATILE";
        const DATA_VOLATILE = 0x2 => "D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE", "DATA_VOLATILE";
        const DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4 => "D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE", "DATA_STATIC_WHILE_SET_AT_EXECUTE";
        const DATA_STATIC = 0x8 => "D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC", "DATA_STATIC";
        const DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS = 0x10000 => "D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS", "DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS";
    }
}

impl DescriptorRangeFlags {
    /// The three mutually exclusive `DATA_*` flags.
    pub const DATA_MASK: Self = Self(
        Self::DATA_VOLATILE.0 | Self::DATA_STATIC_WHILE_SET_AT_EXECUTE.0 | Self::DATA_STATIC.0,
    );

    /// What a version 1.0 range means in version 1.1 terms: volatile descriptors, and volatile
    /// data except for samplers (which have no data). This is DXC's and D3D's up-conversion.
    pub const fn implied_v1_0(range_type: RangeType) -> Self {
        match range_type {
            RangeType::Sampler => Self::DESCRIPTORS_VOLATILE,
            _ => Self(Self::DESCRIPTORS_VOLATILE.0 | Self::DATA_VOLATILE.0),
        }
    }
}

d3d_flags! {
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS` (versions 1.1 and 1.2).
    pub struct RootDescriptorFlags {
        const DATA_VOLATILE = 0x2 => "D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE", "DATA_VOLATILE";
        const DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4 => "D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE", "DATA_STATIC_WHILE_SET_AT_EXECUTE";
        const DATA_STATIC = 0x8 => "D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC", "DATA_STATIC";
    }
}

impl RootDescriptorFlags {
    /// What a version 1.0 root descriptor means in version 1.1 terms.
    pub const IMPLIED_V1_0: Self = Self::DATA_VOLATILE;
}

d3d_flags! {
    /// `D3D12_SAMPLER_FLAGS` (static samplers, version 1.2 only). DXC has no HLSL syntax.
    pub struct SamplerFlags {
        const UINT_BORDER_COLOR = 0x1 => "D3D12_SAMPLER_FLAG_UINT_BORDER_COLOR", "";
        const NON_NORMALIZED_COORDINATES = 0x2 => "D3D12_SAMPLER_FLAG_NON_NORMALIZED_COORDINATES", "";
    }
}

/// `NumDescriptors` value meaning "unbounded" (`UINT_MAX`).
pub const UNBOUNDED: u32 = u32::MAX;
/// `OffsetInDescriptorsFromTableStart` value meaning "right after the previous range"
/// (`D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND`).
pub const APPEND: u32 = u32::MAX;
/// Largest total root signature cost of a global root signature, in DWORDs
/// (`D3D12_MAX_ROOT_COST`).
pub const MAX_ROOT_COST: u32 = 64;
/// First register space reserved for the system; spaces `0xFFFFFFF0..=0xFFFFFFFF` are reserved.
pub const RESERVED_REGISTER_SPACE_START: u32 = 0xFFFF_FFF0;

/// A root signature of any version. See the module docs for the per-version invariants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RootSignature {
    /// Serialization version; decides which fields the binary form carries.
    pub version: Version,
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    pub flags: RootSignatureFlags,
    /// Root parameters in slot order (the index is the D3D12 root parameter index).
    pub parameters: Vec<RootParameter>,
    /// Static samplers in declaration order.
    pub static_samplers: Vec<StaticSampler>,
}

/// One root parameter slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RootParameter {
    /// `ShaderVisibility`.
    pub shader_visibility: ShaderVisibility,
    /// The parameter's type and payload.
    #[serde(flatten)]
    pub kind: RootParameterKind,
}

/// The payload of a root parameter, tagged with `D3D12_ROOT_PARAMETER_TYPE`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "parameter_type")]
pub enum RootParameterKind {
    /// A descriptor table: an offset into the bound shader-visible heap.
    #[serde(rename = "D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE")]
    DescriptorTable(DescriptorTable),
    /// 32-bit root constants, read through a constant buffer register.
    #[serde(rename = "D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS")]
    Constants(RootConstants),
    /// A root constant buffer view (a GPU virtual address).
    #[serde(rename = "D3D12_ROOT_PARAMETER_TYPE_CBV")]
    Cbv(RootDescriptor),
    /// A root shader resource view (raw or structured buffer address).
    #[serde(rename = "D3D12_ROOT_PARAMETER_TYPE_SRV")]
    Srv(RootDescriptor),
    /// A root unordered access view (raw or structured buffer address).
    #[serde(rename = "D3D12_ROOT_PARAMETER_TYPE_UAV")]
    Uav(RootDescriptor),
}

impl RootParameterKind {
    /// The binary `ParameterType` code of this payload.
    pub const fn parameter_type(&self) -> ParameterType {
        match self {
            RootParameterKind::DescriptorTable(_) => ParameterType::DescriptorTable,
            RootParameterKind::Constants(_) => ParameterType::Constants32Bit,
            RootParameterKind::Cbv(_) => ParameterType::Cbv,
            RootParameterKind::Srv(_) => ParameterType::Srv,
            RootParameterKind::Uav(_) => ParameterType::Uav,
        }
    }

    /// For root CBV/SRV/UAV: the register class and the descriptor.
    pub const fn root_descriptor(&self) -> Option<(RegisterClass, &RootDescriptor)> {
        match self {
            RootParameterKind::Cbv(d) => Some((RangeType::Cbv, d)),
            RootParameterKind::Srv(d) => Some((RangeType::Srv, d)),
            RootParameterKind::Uav(d) => Some((RangeType::Uav, d)),
            _ => None,
        }
    }
}

impl RootParameter {
    /// The cost in DWORDs of this parameter against [`MAX_ROOT_COST`]: 1 per table, one per
    /// 32-bit constant, 2 per root descriptor.
    pub fn cost(&self) -> u64 {
        match &self.kind {
            RootParameterKind::DescriptorTable(_) => 1,
            RootParameterKind::Constants(c) => u64::from(c.num_32bit_values),
            RootParameterKind::Cbv(_) | RootParameterKind::Srv(_) | RootParameterKind::Uav(_) => 2,
        }
    }
}

/// `D3D12_ROOT_DESCRIPTOR_TABLE1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
pub struct DescriptorTable {
    /// Ranges in declaration order.
    pub ranges: Vec<DescriptorRange>,
}

impl DescriptorTable {
    /// Each range's start, in descriptors from the table start, with `APPEND` resolved:
    /// an appended range starts where the previous one ends (the first at 0). `None` where the
    /// start is not representable (appended after an unbounded range, or past `u32::MAX`).
    pub fn resolved_offsets(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        // u64 so that "after an unbounded range" (> u32::MAX) stays distinguishable.
        let mut next: u64 = 0;
        self.ranges.iter().map(move |range| {
            let start = if range.offset_in_descriptors_from_table_start == APPEND {
                next
            } else {
                u64::from(range.offset_in_descriptors_from_table_start)
            };
            next = if range.num_descriptors == UNBOUNDED {
                u64::from(u32::MAX) + 1
            } else {
                start + u64::from(range.num_descriptors)
            };
            u32::try_from(start).ok()
        })
    }
}

/// `D3D12_DESCRIPTOR_RANGE1` (version 1.0 ranges use the same model with implied flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DescriptorRange {
    /// `RangeType`.
    pub range_type: RangeType,
    /// `NumDescriptors`; [`UNBOUNDED`] for an unbounded range.
    #[serde(serialize_with = "ser_num_descriptors")]
    pub num_descriptors: u32,
    /// `BaseShaderRegister`.
    pub base_shader_register: u32,
    /// `RegisterSpace`.
    pub register_space: u32,
    /// `Flags` (version 1.0: [`DescriptorRangeFlags::implied_v1_0`]).
    pub flags: DescriptorRangeFlags,
    /// `OffsetInDescriptorsFromTableStart`; [`APPEND`] to follow the previous range.
    #[serde(serialize_with = "ser_range_offset")]
    pub offset_in_descriptors_from_table_start: u32,
}

impl DescriptorRange {
    /// Whether `NumDescriptors` is [`UNBOUNDED`].
    pub const fn is_unbounded(&self) -> bool {
        self.num_descriptors == UNBOUNDED
    }

    /// The last register the range covers (inclusive), saturating at `u32::MAX`.
    pub const fn last_register(&self) -> u32 {
        if self.is_unbounded() {
            u32::MAX
        } else {
            self.base_shader_register
                .saturating_add(self.num_descriptors.saturating_sub(1))
        }
    }
}

/// `D3D12_ROOT_CONSTANTS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RootConstants {
    /// `ShaderRegister` (a `b#` register).
    pub shader_register: u32,
    /// `RegisterSpace`.
    pub register_space: u32,
    /// `Num32BitValues`.
    pub num_32bit_values: u32,
}

/// `D3D12_ROOT_DESCRIPTOR1` (version 1.0 descriptors use the same model with implied flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RootDescriptor {
    /// `ShaderRegister`.
    pub shader_register: u32,
    /// `RegisterSpace`.
    pub register_space: u32,
    /// `Flags` (version 1.0: [`RootDescriptorFlags::IMPLIED_V1_0`]).
    pub flags: RootDescriptorFlags,
}

/// `D3D12_STATIC_SAMPLER_DESC1`. Equality compares the floats bit for bit, so that a NaN read
/// from a blob equals itself.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct StaticSampler {
    /// `Filter`.
    pub filter: Filter,
    /// `AddressU`.
    pub address_u: TextureAddressMode,
    /// `AddressV`.
    pub address_v: TextureAddressMode,
    /// `AddressW`.
    pub address_w: TextureAddressMode,
    /// `MipLODBias`.
    pub mip_lod_bias: f32,
    /// `MaxAnisotropy`.
    pub max_anisotropy: u32,
    /// `ComparisonFunc`.
    pub comparison_func: ComparisonFunc,
    /// `BorderColor`.
    pub border_color: StaticBorderColor,
    /// `MinLOD`.
    pub min_lod: f32,
    /// `MaxLOD`.
    pub max_lod: f32,
    /// `ShaderRegister` (an `s#` register).
    pub shader_register: u32,
    /// `RegisterSpace`.
    pub register_space: u32,
    /// `ShaderVisibility`.
    pub shader_visibility: ShaderVisibility,
    /// `Flags` (version 1.2 only; [`SamplerFlags::NONE`] otherwise).
    pub flags: SamplerFlags,
}

impl PartialEq for StaticSampler {
    fn eq(&self, other: &Self) -> bool {
        self.filter == other.filter
            && self.address_u == other.address_u
            && self.address_v == other.address_v
            && self.address_w == other.address_w
            && self.mip_lod_bias.to_bits() == other.mip_lod_bias.to_bits()
            && self.max_anisotropy == other.max_anisotropy
            && self.comparison_func == other.comparison_func
            && self.border_color == other.border_color
            && self.min_lod.to_bits() == other.min_lod.to_bits()
            && self.max_lod.to_bits() == other.max_lod.to_bits()
            && self.shader_register == other.shader_register
            && self.register_space == other.register_space
            && self.shader_visibility == other.shader_visibility
            && self.flags == other.flags
    }
}

impl Eq for StaticSampler {}

impl StaticSampler {
    /// The sampler DXC's HLSL parser starts from (`StaticSampler(s#)` with no other argument):
    /// anisotropic, wrap, bias 0, anisotropy 16, `LESS_EQUAL`, opaque white, LOD 0..FLT_MAX.
    pub const fn hlsl_default(shader_register: u32) -> Self {
        StaticSampler {
            filter: Filter::Anisotropic,
            address_u: TextureAddressMode::Wrap,
            address_v: TextureAddressMode::Wrap,
            address_w: TextureAddressMode::Wrap,
            mip_lod_bias: 0.0,
            max_anisotropy: 16,
            comparison_func: ComparisonFunc::LessEqual,
            border_color: StaticBorderColor::OpaqueWhite,
            min_lod: 0.0,
            max_lod: f32::MAX,
            shader_register,
            register_space: 0,
            shader_visibility: ShaderVisibility::All,
            flags: SamplerFlags::NONE,
        }
    }
}

impl RootSignature {
    /// An empty root signature of the given version.
    pub const fn new(version: Version) -> Self {
        RootSignature {
            version,
            flags: RootSignatureFlags::NONE,
            parameters: Vec::new(),
            static_samplers: Vec::new(),
        }
    }

    /// Total cost in DWORDs (static samplers are free). Compare against [`MAX_ROOT_COST`].
    pub fn cost(&self) -> u64 {
        self.parameters.iter().map(RootParameter::cost).sum()
    }

    /// Whether this is a local root signature (ray tracing shader records).
    pub const fn is_local(&self) -> bool {
        self.flags
            .contains(RootSignatureFlags::LOCAL_ROOT_SIGNATURE)
    }
}

fn ser_num_descriptors<S: Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    if *value == UNBOUNDED {
        serializer.serialize_str("unbounded")
    } else {
        serializer.serialize_u32(*value)
    }
}

fn ser_range_offset<S: Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    if *value == APPEND {
        serializer.serialize_str("D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND")
    } else {
        serializer.serialize_u32(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_codes_round_trip() {
        for f in Filter::ALL {
            assert_eq!(Filter::from_u32(f.to_u32()), Some(*f));
        }
        assert_eq!(Filter::from_u32(0x56), None);
        assert_eq!(ShaderVisibility::from_u32(8), None);
        assert_eq!(Version::from_u32(3), Some(Version::V1_2));
        assert_eq!(
            ComparisonFunc::LessEqual.hlsl_keyword(),
            Some("COMPARISON_LESS_EQUAL")
        );
        assert_eq!(Filter::MinMagAnisotropicMipPoint.hlsl_keyword(), None);
    }

    #[test]
    fn comparison_filters() {
        assert!(Filter::ComparisonAnisotropic.is_comparison());
        assert!(Filter::ComparisonMinMagMipPoint.is_comparison());
        assert!(!Filter::MinimumAnisotropic.is_comparison());
        assert!(!Filter::Anisotropic.is_comparison());
    }

    #[test]
    fn flags_names_and_unknown_bits() {
        let f = DescriptorRangeFlags::DATA_STATIC | DescriptorRangeFlags(0x100);
        assert_eq!(f.unknown_bits(), 0x100);
        assert_eq!(
            f.names(),
            vec![
                "D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC".to_string(),
                "0x100".to_string()
            ]
        );
        assert_eq!(RootSignatureFlags::VALID.bits(), 0x8000_0fff);
        assert_eq!(DescriptorRangeFlags::VALID.bits(), 0x1000f);
        assert_eq!(RootDescriptorFlags::VALID.bits(), 0xe);
    }

    #[test]
    fn append_offsets_resolve() {
        let range = |n, off| DescriptorRange {
            range_type: RangeType::Srv,
            num_descriptors: n,
            base_shader_register: 0,
            register_space: 0,
            flags: DescriptorRangeFlags::NONE,
            offset_in_descriptors_from_table_start: off,
        };
        let table = DescriptorTable {
            ranges: vec![
                range(3, APPEND),
                range(1, APPEND),
                range(5, 10),
                range(2, APPEND),
                range(UNBOUNDED, APPEND),
                range(1, APPEND),
            ],
        };
        let offsets: Vec<_> = table.resolved_offsets().collect();
        assert_eq!(
            offsets,
            vec![Some(0), Some(3), Some(10), Some(15), Some(17), None]
        );
    }

    #[test]
    fn serializes_with_d3d_names() {
        let rs = RootSignature {
            version: Version::V1_1,
            flags: RootSignatureFlags::ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT,
            parameters: vec![RootParameter {
                shader_visibility: ShaderVisibility::Pixel,
                kind: RootParameterKind::DescriptorTable(DescriptorTable {
                    ranges: vec![DescriptorRange {
                        range_type: RangeType::Srv,
                        num_descriptors: UNBOUNDED,
                        base_shader_register: 2,
                        register_space: 1,
                        flags: DescriptorRangeFlags::DATA_STATIC,
                        offset_in_descriptors_from_table_start: APPEND,
                    }],
                }),
            }],
            static_samplers: vec![StaticSampler::hlsl_default(0)],
        };
        let json = serde_json::to_value(&rs).expect("serializes");
        assert_eq!(json["version"], "D3D_ROOT_SIGNATURE_VERSION_1_1");
        assert_eq!(
            json["flags"],
            serde_json::json!(["D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"])
        );
        let p = &json["parameters"][0];
        assert_eq!(
            p["parameter_type"],
            "D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE"
        );
        assert_eq!(p["shader_visibility"], "D3D12_SHADER_VISIBILITY_PIXEL");
        let r = &p["ranges"][0];
        assert_eq!(r["range_type"], "D3D12_DESCRIPTOR_RANGE_TYPE_SRV");
        assert_eq!(r["num_descriptors"], "unbounded");
        assert_eq!(
            r["offset_in_descriptors_from_table_start"],
            "D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND"
        );
        assert_eq!(r["flags"][0], "D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC");
        let s = &json["static_samplers"][0];
        assert_eq!(s["filter"], "D3D12_FILTER_ANISOTROPIC");
        assert_eq!(s["max_lod"], f64::from(f32::MAX));
        assert_eq!(s["flags"], serde_json::json!([]));
    }

    #[test]
    fn cost_counts_dwords() {
        let mut rs = RootSignature::new(Version::V1_1);
        rs.parameters.push(RootParameter {
            shader_visibility: ShaderVisibility::All,
            kind: RootParameterKind::Constants(RootConstants {
                shader_register: 0,
                register_space: 0,
                num_32bit_values: 5,
            }),
        });
        rs.parameters.push(RootParameter {
            shader_visibility: ShaderVisibility::All,
            kind: RootParameterKind::Uav(RootDescriptor {
                shader_register: 0,
                register_space: 0,
                flags: RootDescriptorFlags::NONE,
            }),
        });
        rs.parameters.push(RootParameter {
            shader_visibility: ShaderVisibility::All,
            kind: RootParameterKind::DescriptorTable(DescriptorTable::default()),
        });
        assert_eq!(rs.cost(), 8);
    }
}
