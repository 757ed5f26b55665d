//! Shader flags (entry property tag 0) and their `SFI0` feature bits.
//!
//! The flags are DXC's `hlsl::ShaderFlags` bit field stored as one `i64`; bit positions
//! follow the declaration order of that struct (DXIL.rst, "Shader flags"). The container's
//! `SFI0` part is derived from them (`ShaderFlags::GetFeatureInfo`); [`ShaderFlags::feature_info`]
//! is that mapping.

use std::fmt;

use serde::{Serialize, Serializer};

/// The 64-bit shader flags of an entry point (or, in a library, of the whole module).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct ShaderFlags(pub u64);

macro_rules! flag_bits {
    ($($(#[$meta:meta])* $name:ident = $bit:literal, $text:literal;)+) => {
        impl ShaderFlags {
            $($(#[$meta])* pub const $name: ShaderFlags = ShaderFlags(1 << $bit);)+

            /// Every named bit: (flag, name as DXC spells the field without its `m_b` prefix).
            pub const NAMES: &'static [(ShaderFlags, &'static str)] = &[
                $((ShaderFlags::$name, $text),)+
            ];
        }
    };
}

flag_bits! {
    /// Bit 0: `D3D11_1_SB_GLOBAL_FLAG_SKIP_OPTIMIZATION`.
    DISABLE_OPTIMIZATIONS = 0, "DisableOptimizations";
    /// Bit 1: refactoring not allowed.
    DISABLE_MATH_REFACTORING = 1, "DisableMathRefactoring";
    ENABLE_DOUBLE_PRECISION = 2, "EnableDoublePrecision";
    FORCE_EARLY_DEPTH_STENCIL = 3, "ForceEarlyDepthStencil";
    ENABLE_RAW_AND_STRUCTURED_BUFFERS = 4, "EnableRawAndStructuredBuffers";
    /// Bit 5: min-precision or (with bit 23) native 16-bit types are used.
    LOW_PRECISION_PRESENT = 5, "LowPrecisionPresent";
    ENABLE_DOUBLE_EXTENSIONS = 6, "EnableDoubleExtensions";
    /// Bit 7: MSAD and other 11.1 shader extensions.
    ENABLE_MSAD = 7, "EnableMSAD";
    ALL_RESOURCES_BOUND = 8, "AllResourcesBound";
    VIEWPORT_AND_RT_ARRAY_INDEX = 9, "ViewportAndRTArrayIndex";
    INNER_COVERAGE = 10, "InnerCoverage";
    STENCIL_REF = 11, "StencilRef";
    TILED_RESOURCES = 12, "TiledResources";
    UAV_LOAD_ADDITIONAL_FORMATS = 13, "UAVLoadAdditionalFormats";
    LEVEL9_COMPARISON_FILTERING = 14, "Level9ComparisonFiltering";
    UAVS_64 = 15, "64UAVs";
    UAVS_AT_EVERY_STAGE = 16, "UAVsAtEveryStage";
    CS_RAW_AND_STRUCTURED_VIA_SHADER_4X = 17, "CSRawAndStructuredViaShader4X";
    ROVS = 18, "ROVs";
    WAVE_OPS = 19, "WaveOps";
    INT64_OPS = 20, "Int64Ops";
    /// Bit 21 (SM 6.1).
    VIEW_ID = 21, "ViewID";
    BARYCENTRICS = 22, "Barycentrics";
    /// Bit 23 (SM 6.2): 16-bit types are native, not min-precision.
    USE_NATIVE_LOW_PRECISION = 23, "UseNativeLowPrecision";
    /// Bit 24 (SM 6.4).
    SHADING_RATE = 24, "ShadingRate";
    /// Bit 25 (SM 6.5).
    RAYTRACING_TIER_1_1 = 25, "RaytracingTier1_1";
    SAMPLER_FEEDBACK = 26, "SamplerFeedback";
    /// Bit 27 (SM 6.6).
    ATOMIC_INT64_ON_TYPED_RESOURCE = 27, "AtomicInt64OnTypedResource";
    ATOMIC_INT64_ON_GROUP_SHARED = 28, "AtomicInt64OnGroupShared";
    DERIVATIVES_IN_MESH_AND_AMP_SHADERS = 29, "DerivativesInMeshAndAmpShaders";
    RESOURCE_DESCRIPTOR_HEAP_INDEXING = 30, "ResourceDescriptorHeapIndexing";
    SAMPLER_DESCRIPTOR_HEAP_INDEXING = 31, "SamplerDescriptorHeapIndexing";
    ATOMIC_INT64_ON_HEAP_RESOURCE = 32, "AtomicInt64OnHeapResource";
    /// Bit 33 (SM 6.7): no UAV aliases another.
    RES_MAY_NOT_ALIAS = 33, "ResMayNotAlias";
    ADVANCED_TEXTURE_OPS = 34, "AdvancedTextureOps";
    WRITEABLE_MSAA_TEXTURES = 35, "WriteableMSAATextures";
    /// Bit 36: reserved (SM 6.9 experimental).
    RESERVED = 36, "Reserved";
    /// Bit 37 (SM 6.8).
    SAMPLE_CMP_GRADIENT_OR_BIAS = 37, "SampleCmpGradientOrBias";
    EXTENDED_COMMAND_INFO = 38, "ExtendedCommandInfo";
    /// Bit 39: per-function flag, the function uses derivatives.
    USES_DERIVATIVES = 39, "UsesDerivatives";
    /// Bit 40: per-function flag, the function needs a visible thread group.
    REQUIRES_GROUP = 40, "RequiresGroup";
}

/// `SFI0` feature bits (`DXIL::ShaderFeatureInfo_*`, design notes §1.5).
pub mod feature {
    pub const DOUBLES: u64 = 0x1;
    pub const COMPUTE_SHADERS_PLUS_RAW_AND_STRUCTURED_BUFFERS_VIA_SHADER_4X: u64 = 0x2;
    pub const UAVS_AT_EVERY_STAGE: u64 = 0x4;
    pub const UAVS_64: u64 = 0x8;
    pub const MINIMUM_PRECISION: u64 = 0x10;
    pub const DOUBLE_EXTENSIONS_11_1: u64 = 0x20;
    pub const SHADER_EXTENSIONS_11_1: u64 = 0x40;
    pub const LEVEL9_COMPARISON_FILTERING: u64 = 0x80;
    pub const TILED_RESOURCES: u64 = 0x100;
    pub const STENCIL_REF: u64 = 0x200;
    pub const INNER_COVERAGE: u64 = 0x400;
    pub const TYPED_UAV_LOAD_ADDITIONAL_FORMATS: u64 = 0x800;
    pub const ROVS: u64 = 0x1000;
    pub const VIEWPORT_AND_RT_ARRAY_INDEX_FROM_ANY_SHADER_FEEDING_RASTERIZER: u64 = 0x2000;
    pub const WAVE_OPS: u64 = 0x4000;
    pub const INT64_OPS: u64 = 0x8000;
    pub const VIEW_ID: u64 = 0x1_0000;
    pub const BARYCENTRICS: u64 = 0x2_0000;
    pub const NATIVE_LOW_PRECISION: u64 = 0x4_0000;
    pub const SHADING_RATE: u64 = 0x8_0000;
    pub const RAYTRACING_TIER_1_1: u64 = 0x10_0000;
    pub const SAMPLER_FEEDBACK: u64 = 0x20_0000;
    pub const ATOMIC_INT64_ON_TYPED_RESOURCE: u64 = 0x40_0000;
    pub const ATOMIC_INT64_ON_GROUP_SHARED: u64 = 0x80_0000;
    pub const DERIVATIVES_IN_MESH_AND_AMP_SHADERS: u64 = 0x100_0000;
    pub const RESOURCE_DESCRIPTOR_HEAP_INDEXING: u64 = 0x200_0000;
    pub const SAMPLER_DESCRIPTOR_HEAP_INDEXING: u64 = 0x400_0000;
    pub const WAVE_MMA: u64 = 0x800_0000;
    pub const ATOMIC_INT64_ON_HEAP_RESOURCE: u64 = 0x1000_0000;
    pub const ADVANCED_TEXTURE_OPS: u64 = 0x2000_0000;
    pub const WRITEABLE_MSAA_TEXTURES: u64 = 0x4000_0000;
    pub const SAMPLE_CMP_GRADIENT_OR_BIAS: u64 = 0x8000_0000;
    pub const EXTENDED_COMMAND_INFO: u64 = 0x1_0000_0000;
    /// Optional (runtime-ignorable) bits start here; used in RDAT, not in `SFI0`.
    pub const OPT_USES_DERIVATIVES: u64 = 0x100_0000_0000;
    pub const OPT_REQUIRES_GROUP: u64 = 0x200_0000_0000;
    /// Bits that may appear in an `SFI0` part (everything below the optional range).
    pub const SFI0_MASK: u64 = (1 << 40) - 1;
}

/// One-to-one flag → feature-bit pairs of `GetFeatureInfo` (the low-precision pair is
/// handled separately because it depends on two flags).
const FEATURE_MAP: [(ShaderFlags, u64); 32] = [
    (ShaderFlags::ENABLE_DOUBLE_PRECISION, feature::DOUBLES),
    (
        ShaderFlags::ENABLE_DOUBLE_EXTENSIONS,
        feature::DOUBLE_EXTENSIONS_11_1,
    ),
    (ShaderFlags::WAVE_OPS, feature::WAVE_OPS),
    (ShaderFlags::INT64_OPS, feature::INT64_OPS),
    (ShaderFlags::ROVS, feature::ROVS),
    (
        ShaderFlags::VIEWPORT_AND_RT_ARRAY_INDEX,
        feature::VIEWPORT_AND_RT_ARRAY_INDEX_FROM_ANY_SHADER_FEEDING_RASTERIZER,
    ),
    (ShaderFlags::INNER_COVERAGE, feature::INNER_COVERAGE),
    (ShaderFlags::STENCIL_REF, feature::STENCIL_REF),
    (ShaderFlags::TILED_RESOURCES, feature::TILED_RESOURCES),
    (ShaderFlags::ENABLE_MSAD, feature::SHADER_EXTENSIONS_11_1),
    (
        ShaderFlags::CS_RAW_AND_STRUCTURED_VIA_SHADER_4X,
        feature::COMPUTE_SHADERS_PLUS_RAW_AND_STRUCTURED_BUFFERS_VIA_SHADER_4X,
    ),
    (
        ShaderFlags::UAVS_AT_EVERY_STAGE,
        feature::UAVS_AT_EVERY_STAGE,
    ),
    (ShaderFlags::UAVS_64, feature::UAVS_64),
    (
        ShaderFlags::LEVEL9_COMPARISON_FILTERING,
        feature::LEVEL9_COMPARISON_FILTERING,
    ),
    (
        ShaderFlags::UAV_LOAD_ADDITIONAL_FORMATS,
        feature::TYPED_UAV_LOAD_ADDITIONAL_FORMATS,
    ),
    (ShaderFlags::VIEW_ID, feature::VIEW_ID),
    (ShaderFlags::BARYCENTRICS, feature::BARYCENTRICS),
    (ShaderFlags::SHADING_RATE, feature::SHADING_RATE),
    (
        ShaderFlags::RAYTRACING_TIER_1_1,
        feature::RAYTRACING_TIER_1_1,
    ),
    (ShaderFlags::SAMPLER_FEEDBACK, feature::SAMPLER_FEEDBACK),
    (
        ShaderFlags::ATOMIC_INT64_ON_TYPED_RESOURCE,
        feature::ATOMIC_INT64_ON_TYPED_RESOURCE,
    ),
    (
        ShaderFlags::ATOMIC_INT64_ON_GROUP_SHARED,
        feature::ATOMIC_INT64_ON_GROUP_SHARED,
    ),
    (
        ShaderFlags::DERIVATIVES_IN_MESH_AND_AMP_SHADERS,
        feature::DERIVATIVES_IN_MESH_AND_AMP_SHADERS,
    ),
    (
        ShaderFlags::RESOURCE_DESCRIPTOR_HEAP_INDEXING,
        feature::RESOURCE_DESCRIPTOR_HEAP_INDEXING,
    ),
    (
        ShaderFlags::SAMPLER_DESCRIPTOR_HEAP_INDEXING,
        feature::SAMPLER_DESCRIPTOR_HEAP_INDEXING,
    ),
    (
        ShaderFlags::ATOMIC_INT64_ON_HEAP_RESOURCE,
        feature::ATOMIC_INT64_ON_HEAP_RESOURCE,
    ),
    (
        ShaderFlags::ADVANCED_TEXTURE_OPS,
        feature::ADVANCED_TEXTURE_OPS,
    ),
    (
        ShaderFlags::WRITEABLE_MSAA_TEXTURES,
        feature::WRITEABLE_MSAA_TEXTURES,
    ),
    (
        ShaderFlags::SAMPLE_CMP_GRADIENT_OR_BIAS,
        feature::SAMPLE_CMP_GRADIENT_OR_BIAS,
    ),
    (
        ShaderFlags::EXTENDED_COMMAND_INFO,
        feature::EXTENDED_COMMAND_INFO,
    ),
    (ShaderFlags::USES_DERIVATIVES, feature::OPT_USES_DERIVATIVES),
    (ShaderFlags::REQUIRES_GROUP, feature::OPT_REQUIRES_GROUP),
];

impl ShaderFlags {
    /// Flags that the validator recomputes from the code and compares
    /// (`GetShaderFlagsRawForCollection`); the others are declared-only.
    pub const COLLECTABLE: ShaderFlags = ShaderFlags(
        Self::ENABLE_DOUBLE_PRECISION.0
            | Self::INT64_OPS.0
            | Self::LOW_PRECISION_PRESENT.0
            | Self::ENABLE_DOUBLE_EXTENSIONS.0
            | Self::WAVE_OPS.0
            | Self::TILED_RESOURCES.0
            | Self::ENABLE_MSAD.0
            | Self::UAV_LOAD_ADDITIONAL_FORMATS.0
            | Self::STENCIL_REF.0
            | Self::INNER_COVERAGE.0
            | Self::VIEWPORT_AND_RT_ARRAY_INDEX.0
            | Self::UAVS_64.0
            | Self::UAVS_AT_EVERY_STAGE.0
            | Self::ENABLE_RAW_AND_STRUCTURED_BUFFERS.0
            | Self::CS_RAW_AND_STRUCTURED_VIA_SHADER_4X.0
            | Self::VIEW_ID.0
            | Self::BARYCENTRICS.0
            | Self::SHADING_RATE.0
            | Self::RAYTRACING_TIER_1_1.0
            | Self::SAMPLER_FEEDBACK.0
            | Self::ATOMIC_INT64_ON_TYPED_RESOURCE.0
            | Self::ATOMIC_INT64_ON_GROUP_SHARED.0
            | Self::DERIVATIVES_IN_MESH_AND_AMP_SHADERS.0
            | Self::RESOURCE_DESCRIPTOR_HEAP_INDEXING.0
            | Self::SAMPLER_DESCRIPTOR_HEAP_INDEXING.0
            | Self::ATOMIC_INT64_ON_HEAP_RESOURCE.0
            | Self::RES_MAY_NOT_ALIAS.0
            | Self::ADVANCED_TEXTURE_OPS.0
            | Self::WRITEABLE_MSAA_TEXTURES.0
            | Self::SAMPLE_CMP_GRADIENT_OR_BIAS.0
            | Self::EXTENDED_COMMAND_INFO.0
            | Self::USES_DERIVATIVES.0
            | Self::REQUIRES_GROUP.0,
    );

    pub const fn bits(self) -> u64 {
        self.0
    }

    pub const fn contains(self, other: ShaderFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: ShaderFlags) -> ShaderFlags {
        ShaderFlags(self.0 | other.0)
    }

    /// Names of the set bits, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        ShaderFlags::NAMES
            .iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
    }

    /// Set bits without a name (bits 41 and up).
    pub fn unknown_bits(self) -> u64 {
        ShaderFlags::NAMES
            .iter()
            .fold(self.0, |rest, (f, _)| rest & !f.0)
    }

    /// The feature bits DXC derives from these flags (`ShaderFlags::GetFeatureInfo`),
    /// including the optional bits 40 and 41 (`UsesDerivatives`, `RequiresGroup`) that
    /// only the runtime data part uses. Mask with [`feature::SFI0_MASK`] for `SFI0`; see
    /// [`ShaderFlags::sfi0_bits`].
    pub fn feature_info(self) -> u64 {
        let mut bits = 0;
        for (flag, feature) in FEATURE_MAP {
            if self.contains(flag) {
                bits |= feature;
            }
        }
        if self.contains(ShaderFlags::LOW_PRECISION_PRESENT) {
            bits |= if self.contains(ShaderFlags::USE_NATIVE_LOW_PRECISION) {
                feature::NATIVE_LOW_PRECISION
            } else {
                feature::MINIMUM_PRECISION
            };
        }
        bits
    }

    /// The value of the container's `SFI0` part for these flags.
    pub fn sfi0_bits(self) -> u64 {
        self.feature_info() & feature::SFI0_MASK
    }
}

impl fmt::Display for ShaderFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)?;
        let mut sep = " (";
        for name in self.names() {
            write!(f, "{sep}{name}")?;
            sep = ", ";
        }
        if self.unknown_bits() != 0 {
            write!(f, "{sep}unknown {:#x}", self.unknown_bits())?;
            sep = ", ";
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl Serialize for ShaderFlags {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View {
            raw: u64,
            names: Vec<&'static str>,
            unknown_bits: u64,
        }
        View {
            raw: self.0,
            names: self.names().collect(),
            unknown_bits: self.unknown_bits(),
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bit_below_41_is_named_once() {
        let mut seen = 0u64;
        for (flag, _) in ShaderFlags::NAMES {
            assert_eq!(flag.0.count_ones(), 1);
            assert_eq!(seen & flag.0, 0, "{flag:?} named twice");
            seen |= flag.0;
        }
        assert_eq!(seen, (1 << 41) - 1);
        assert_eq!(ShaderFlags(1 << 45).unknown_bits(), 1 << 45);
    }

    #[test]
    fn names_and_display() {
        // Flags of a real cs_6_6 entry: heap indexing, 64 UAVs, native low precision, ...
        let f = ShaderFlags(3_229_646_864);
        let names: Vec<_> = f.names().collect();
        assert_eq!(
            names,
            [
                "EnableRawAndStructuredBuffers",
                "64UAVs",
                "UseNativeLowPrecision",
                "ResourceDescriptorHeapIndexing",
                "SamplerDescriptorHeapIndexing"
            ]
        );
        assert_eq!(
            ShaderFlags(0x10).to_string(),
            "0x10 (EnableRawAndStructuredBuffers)"
        );
        assert_eq!(ShaderFlags(0).to_string(), "0x0");
        let json = serde_json::to_string(&ShaderFlags(0x80000)).unwrap();
        assert_eq!(
            json,
            r#"{"raw":524288,"names":["WaveOps"],"unknown_bits":0}"#
        );
    }

    #[test]
    fn feature_info_follows_get_feature_info() {
        let f = ShaderFlags(3_229_646_864);
        assert_eq!(
            f.feature_info(),
            feature::UAVS_64
                | feature::RESOURCE_DESCRIPTOR_HEAP_INDEXING
                | feature::SAMPLER_DESCRIPTOR_HEAP_INDEXING
        );
        // Low precision: min-precision unless native 16-bit types are declared.
        let low = ShaderFlags::LOW_PRECISION_PRESENT;
        assert_eq!(low.feature_info(), feature::MINIMUM_PRECISION);
        assert_eq!(
            low.union(ShaderFlags::USE_NATIVE_LOW_PRECISION)
                .feature_info(),
            feature::NATIVE_LOW_PRECISION
        );
        // Declared-only flags have no feature bit.
        for f in [
            ShaderFlags::DISABLE_OPTIMIZATIONS,
            ShaderFlags::DISABLE_MATH_REFACTORING,
            ShaderFlags::FORCE_EARLY_DEPTH_STENCIL,
            ShaderFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS,
            ShaderFlags::ALL_RESOURCES_BOUND,
            ShaderFlags::RES_MAY_NOT_ALIAS,
            ShaderFlags::RESERVED,
        ] {
            assert_eq!(f.feature_info(), 0, "{f}");
        }
        // Each mapped flag sets exactly one distinct feature bit.
        let mut seen = 0u64;
        for (flag, bit) in FEATURE_MAP {
            assert_eq!(flag.feature_info(), bit);
            assert_eq!(seen & bit, 0);
            seen |= bit;
        }
        let opt = ShaderFlags::USES_DERIVATIVES.union(ShaderFlags::WAVE_OPS);
        assert_eq!(opt.sfi0_bits(), feature::WAVE_OPS);
    }

    #[test]
    fn feature_names_match_the_container_table() {
        // The container crate names SFI0 bits; every bit produced here must have a name there.
        let all = ShaderFlags(u64::MAX).feature_info();
        let info = dxil_container::FeatureInfo { flags: all };
        assert_eq!(info.unknown_bits(), 0);
        assert_eq!(info.names().count() as u32, all.count_ones());
    }
}
