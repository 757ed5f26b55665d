//! Enumerations stored in DXIL metadata and `dx.op` operands.
//!
//! Every enum is "open": a value this crate does not name is kept as `Other(raw)`, so that
//! reading metadata never loses information and a newer DXC's values still read. They
//! serialize by name; unknown values serialize as their number. Enums that the container
//! parts store with the same numbering (`ShaderKind`, `ResourceKind`, `SemanticKind`, ...)
//! are re-exported from `dxil-container` rather than duplicated.

pub use dxil_container::{
    InputPrimitive, InterpolationMode, MeshOutputTopology, PrimitiveTopology, ResourceKind,
    SemanticKind, ShaderKind, TessellatorDomain, TessellatorOutputPrimitive,
};

use dxil_container::open_enum;

open_enum! {
    /// `DXIL::ResourceClass`: which `dx.resources` list a resource is in, and the class
    /// operand of `createHandle` and of `%dx.types.ResBind`.
    pub enum ResourceClass {
        SRV = 0,
        UAV = 1,
        CBuffer = 2,
        Sampler = 3,
        Invalid = 4,
    }
}

impl ResourceClass {
    /// The four classes, in `dx.resources` list order.
    pub const ALL: [ResourceClass; 4] = [
        ResourceClass::SRV,
        ResourceClass::UAV,
        ResourceClass::CBuffer,
        ResourceClass::Sampler,
    ];

    /// The D3D12 descriptor type name (`SRV`, `UAV`, `CBV`, `Sampler`).
    pub const fn d3d_name(self) -> &'static str {
        match self {
            ResourceClass::SRV => "SRV",
            ResourceClass::UAV => "UAV",
            ResourceClass::CBuffer => "CBV",
            ResourceClass::Sampler => "Sampler",
            ResourceClass::Invalid | ResourceClass::Other(_) => "Invalid",
        }
    }

    /// The HLSL register letter (`t`, `u`, `b`, `s`).
    pub const fn register_letter(self) -> Option<char> {
        match self {
            ResourceClass::SRV => Some('t'),
            ResourceClass::UAV => Some('u'),
            ResourceClass::CBuffer => Some('b'),
            ResourceClass::Sampler => Some('s'),
            ResourceClass::Invalid | ResourceClass::Other(_) => None,
        }
    }

    /// Position of the class's list in `!dx.resources`.
    pub const fn list_index(self) -> Option<usize> {
        match self {
            ResourceClass::SRV => Some(0),
            ResourceClass::UAV => Some(1),
            ResourceClass::CBuffer => Some(2),
            ResourceClass::Sampler => Some(3),
            ResourceClass::Invalid | ResourceClass::Other(_) => None,
        }
    }
}

open_enum! {
    /// `DXIL::ComponentType`: the element type of typed resources (tag 0), of signature
    /// elements, and of `annotateHandle` properties. Not the container's `ComponentType`,
    /// which numbers signature component types differently.
    pub enum ComponentType {
        Invalid = 0,
        I1 = 1,
        I16 = 2,
        U16 = 3,
        I32 = 4,
        U32 = 5,
        I64 = 6,
        U64 = 7,
        F16 = 8,
        F32 = 9,
        F64 = 10,
        SNormF16 = 11,
        UNormF16 = 12,
        SNormF32 = 13,
        UNormF32 = 14,
        SNormF64 = 15,
        UNormF64 = 16,
        PackedS8x32 = 17,
        PackedU8x32 = 18,
    }
}

impl ComponentType {
    /// Size of one component in bits (0 for `Invalid` and unknown values).
    pub const fn bits(self) -> u32 {
        match self {
            ComponentType::I1 => 1,
            ComponentType::I16
            | ComponentType::U16
            | ComponentType::F16
            | ComponentType::SNormF16
            | ComponentType::UNormF16 => 16,
            ComponentType::I32
            | ComponentType::U32
            | ComponentType::F32
            | ComponentType::SNormF32
            | ComponentType::UNormF32
            | ComponentType::PackedS8x32
            | ComponentType::PackedU8x32 => 32,
            ComponentType::I64
            | ComponentType::U64
            | ComponentType::F64
            | ComponentType::SNormF64
            | ComponentType::UNormF64 => 64,
            ComponentType::Invalid | ComponentType::Other(_) => 0,
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(
            self,
            ComponentType::F16
                | ComponentType::F32
                | ComponentType::F64
                | ComponentType::SNormF16
                | ComponentType::UNormF16
                | ComponentType::SNormF32
                | ComponentType::UNormF32
                | ComponentType::SNormF64
                | ComponentType::UNormF64
        )
    }

    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            ComponentType::I16 | ComponentType::I32 | ComponentType::I64
        )
    }

    pub const fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            ComponentType::I1 | ComponentType::U16 | ComponentType::U32 | ComponentType::U64
        )
    }
}

open_enum! {
    /// `DXIL::SamplerKind`: the sampler record's type field.
    pub enum SamplerKind {
        Default = 0,
        Comparison = 1,
        Mono = 2,
        Invalid = 3,
    }
}

open_enum! {
    /// `DXIL::SamplerFeedbackType` (resource tag 2, and the second properties word of
    /// feedback textures).
    pub enum SamplerFeedbackType {
        MinMip = 0,
        MipRegionUsed = 1,
    }
}

open_enum! {
    /// `DXIL::TessellatorPartitioning` (hull shader state).
    pub enum TessellatorPartitioning {
        Undefined = 0,
        Integer = 1,
        Pow2 = 2,
        FractionalOdd = 3,
        FractionalEven = 4,
    }
}

open_enum! {
    /// `DXIL::NodeLaunchType` (work-graph node shaders, entry property tag 13).
    pub enum NodeLaunchType {
        Invalid = 0,
        Broadcasting = 1,
        Coalescing = 2,
        Thread = 3,
    }
}

/// The HLSL object name of a resource (`RWStructuredBuffer`, `Texture2DArray`,
/// `RasterizerOrderedByteAddressBuffer`, `SamplerComparisonState`, `cbuffer`).
///
/// `comparison` applies to samplers only; `rov` to UAVs only.
pub fn hlsl_type_name(
    class: ResourceClass,
    kind: ResourceKind,
    rov: bool,
    comparison: bool,
) -> &'static str {
    use ResourceKind as K;
    match class {
        ResourceClass::CBuffer => return "cbuffer",
        ResourceClass::Sampler => {
            return if comparison {
                "SamplerComparisonState"
            } else {
                "SamplerState"
            };
        }
        ResourceClass::SRV => {
            return match kind {
                K::Texture1D => "Texture1D",
                K::Texture2D => "Texture2D",
                K::Texture2DMS => "Texture2DMS",
                K::Texture3D => "Texture3D",
                K::TextureCube => "TextureCube",
                K::Texture1DArray => "Texture1DArray",
                K::Texture2DArray => "Texture2DArray",
                K::Texture2DMSArray => "Texture2DMSArray",
                K::TextureCubeArray => "TextureCubeArray",
                K::TypedBuffer => "Buffer",
                K::RawBuffer => "ByteAddressBuffer",
                K::StructuredBuffer => "StructuredBuffer",
                K::TBuffer => "tbuffer",
                K::RTAccelerationStructure => "RaytracingAccelerationStructure",
                _ => "<invalid SRV kind>",
            };
        }
        ResourceClass::UAV => {}
        ResourceClass::Invalid | ResourceClass::Other(_) => return "<invalid resource class>",
    }
    if rov {
        return match kind {
            K::Texture1D => "RasterizerOrderedTexture1D",
            K::Texture2D => "RasterizerOrderedTexture2D",
            K::Texture3D => "RasterizerOrderedTexture3D",
            K::Texture1DArray => "RasterizerOrderedTexture1DArray",
            K::Texture2DArray => "RasterizerOrderedTexture2DArray",
            K::TypedBuffer => "RasterizerOrderedBuffer",
            K::RawBuffer => "RasterizerOrderedByteAddressBuffer",
            K::StructuredBuffer => "RasterizerOrderedStructuredBuffer",
            _ => "<invalid ROV kind>",
        };
    }
    match kind {
        K::Texture1D => "RWTexture1D",
        K::Texture2D => "RWTexture2D",
        K::Texture2DMS => "RWTexture2DMS",
        K::Texture3D => "RWTexture3D",
        K::Texture1DArray => "RWTexture1DArray",
        K::Texture2DArray => "RWTexture2DArray",
        K::Texture2DMSArray => "RWTexture2DMSArray",
        K::TypedBuffer => "RWBuffer",
        K::RawBuffer => "RWByteAddressBuffer",
        K::StructuredBuffer => "RWStructuredBuffer",
        K::FeedbackTexture2D => "FeedbackTexture2D",
        K::FeedbackTexture2DArray => "FeedbackTexture2DArray",
        _ => "<invalid UAV kind>",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_round_trips_and_names() {
        for v in 0..40u32 {
            assert_eq!(ComponentType::from_raw(v).raw(), v);
            assert_eq!(ResourceClass::from_raw(v).raw(), v);
            assert_eq!(SamplerKind::from_raw(v).raw(), v);
            assert_eq!(NodeLaunchType::from_raw(v).raw(), v);
        }
        assert_eq!(ComponentType::from_raw(9), ComponentType::F32);
        assert_eq!(ComponentType::F32.bits(), 32);
        assert!(ComponentType::UNormF16.is_float());
        assert!(ComponentType::U64.is_unsigned_int());
        assert!(!ComponentType::U64.is_signed_int());
        assert_eq!(ComponentType::Other(77).to_string(), "Other(77)");
        assert_eq!(ResourceClass::CBuffer.d3d_name(), "CBV");
        assert_eq!(ResourceClass::UAV.register_letter(), Some('u'));
        assert_eq!(ResourceClass::Sampler.list_index(), Some(3));
        assert_eq!(ResourceClass::Other(9).list_index(), None);
        let json = serde_json::to_string(&[ComponentType::F16, ComponentType::Other(30)]).unwrap();
        assert_eq!(json, r#"["F16",30]"#);
    }

    #[test]
    fn hlsl_names() {
        use ResourceClass as C;
        use ResourceKind as K;
        assert_eq!(
            hlsl_type_name(C::UAV, K::StructuredBuffer, false, false),
            "RWStructuredBuffer"
        );
        assert_eq!(
            hlsl_type_name(C::UAV, K::RawBuffer, true, false),
            "RasterizerOrderedByteAddressBuffer"
        );
        assert_eq!(
            hlsl_type_name(C::SRV, K::TypedBuffer, false, false),
            "Buffer"
        );
        assert_eq!(
            hlsl_type_name(C::Sampler, K::Sampler, false, true),
            "SamplerComparisonState"
        );
        assert_eq!(
            hlsl_type_name(C::CBuffer, K::CBuffer, false, false),
            "cbuffer"
        );
        assert_eq!(
            hlsl_type_name(C::SRV, K::RTAccelerationStructure, false, false),
            "RaytracingAccelerationStructure"
        );
        assert_eq!(
            hlsl_type_name(C::SRV, K::Sampler, false, false),
            "<invalid SRV kind>"
        );
    }
}
