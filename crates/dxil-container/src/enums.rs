//! Enumerations stored in container parts. Every one is "open": a value without a name is kept as
//! `Other(raw)` so that reading and writing back never loses information. Serialized (serde) by
//! name; unknown values serialize as their number.

use crate::{Error, ErrorKind, FourCC, Result};

/// Defines an open enumeration: named variants with their stored values plus `Other(u32)`, with
/// `from_raw`/`raw`/`name`, `From<u32>`, `Display` (the name, or `Other(n)`) and `Serialize`
/// (the name, or the number). Exported so that `dxil-shader`'s metadata enums are the same kind
/// of type as the container's; not part of the crate's API otherwise.
#[doc(hidden)]
#[macro_export]
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $value:expr,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value without a name in this crate.
            Other(u32),
        }

        impl $name {
            /// The enumerator for a stored value.
            pub const fn from_raw(value: u32) -> Self {
                match value {
                    $($value => Self::$variant,)+
                    other => Self::Other(other),
                }
            }

            /// The stored value.
            pub const fn raw(self) -> u32 {
                match self {
                    $(Self::$variant => $value,)+
                    Self::Other(value) => value,
                }
            }

            /// The enumerator's name, `None` for [`Self::Other`].
            pub const fn name(self) -> Option<&'static str> {
                match self {
                    $(Self::$variant => Some(stringify!($variant)),)+
                    Self::Other(_) => None,
                }
            }
        }

        impl ::core::convert::From<u32> for $name {
            fn from(value: u32) -> Self {
                Self::from_raw(value)
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "Other({})", self.raw()),
                }
            }
        }

        impl $crate::__serde::Serialize for $name {
            fn serialize<S: $crate::__serde::Serializer>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                match self.name() {
                    Some(name) => s.serialize_str(name),
                    None => s.serialize_u32(self.raw()),
                }
            }
        }
    };
}

open_enum! {
    /// `DXIL::ShaderKind`: the stage in a program header and in PSV0 runtime info.
    pub enum ShaderKind {
        Pixel = 0,
        Vertex = 1,
        Geometry = 2,
        Hull = 3,
        Domain = 4,
        Compute = 5,
        Library = 6,
        RayGeneration = 7,
        Intersection = 8,
        AnyHit = 9,
        ClosestHit = 10,
        Miss = 11,
        Callable = 12,
        Mesh = 13,
        Amplification = 14,
        Node = 15,
        Invalid = 16,
    }
}

open_enum! {
    /// `DxilProgramSigSemantic` (the D3D_NAME values): a signature element's system value.
    pub enum SystemValue {
        Undefined = 0,
        Position = 1,
        ClipDistance = 2,
        CullDistance = 3,
        RenderTargetArrayIndex = 4,
        ViewPortArrayIndex = 5,
        VertexID = 6,
        PrimitiveID = 7,
        InstanceID = 8,
        IsFrontFace = 9,
        SampleIndex = 10,
        FinalQuadEdgeTessfactor = 11,
        FinalQuadInsideTessfactor = 12,
        FinalTriEdgeTessfactor = 13,
        FinalTriInsideTessfactor = 14,
        FinalLineDetailTessfactor = 15,
        FinalLineDensityTessfactor = 16,
        Barycentrics = 23,
        ShadingRate = 24,
        CullPrimitive = 25,
        Target = 64,
        Depth = 65,
        Coverage = 66,
        DepthGE = 67,
        DepthLE = 68,
        StencilRef = 69,
        InnerCoverage = 70,
    }
}

open_enum! {
    /// `DxilProgramSigCompType`: the component type of a signature element (ISG1 and PSV0).
    pub enum ComponentType {
        Unknown = 0,
        UInt32 = 1,
        SInt32 = 2,
        Float32 = 3,
        UInt16 = 4,
        SInt16 = 5,
        Float16 = 6,
        UInt64 = 7,
        SInt64 = 8,
        Float64 = 9,
    }
}

open_enum! {
    /// `DxilProgramSigMinPrecision`.
    pub enum MinPrecision {
        Default = 0,
        Float16 = 1,
        Float2_8 = 2,
        Reserved = 3,
        SInt16 = 4,
        UInt16 = 5,
        Any16 = 0xf0,
        Any10 = 0xf1,
    }
}

open_enum! {
    /// `DXIL::SemanticKind` (`PSVSemanticKind`): the semantic of a PSV0 signature element.
    pub enum SemanticKind {
        Arbitrary = 0,
        VertexID = 1,
        InstanceID = 2,
        Position = 3,
        RenderTargetArrayIndex = 4,
        ViewPortArrayIndex = 5,
        ClipDistance = 6,
        CullDistance = 7,
        OutputControlPointID = 8,
        DomainLocation = 9,
        PrimitiveID = 10,
        GSInstanceID = 11,
        SampleIndex = 12,
        IsFrontFace = 13,
        Coverage = 14,
        InnerCoverage = 15,
        Target = 16,
        Depth = 17,
        DepthLessEqual = 18,
        DepthGreaterEqual = 19,
        StencilRef = 20,
        DispatchThreadID = 21,
        GroupID = 22,
        GroupIndex = 23,
        GroupThreadID = 24,
        TessFactor = 25,
        InsideTessFactor = 26,
        ViewID = 27,
        Barycentrics = 28,
        ShadingRate = 29,
        CullPrimitive = 30,
        StartVertexLocation = 31,
        StartInstanceLocation = 32,
    }
}

open_enum! {
    /// `DXIL::InterpolationMode`.
    pub enum InterpolationMode {
        Undefined = 0,
        Constant = 1,
        Linear = 2,
        LinearCentroid = 3,
        LinearNoperspective = 4,
        LinearNoperspectiveCentroid = 5,
        LinearSample = 6,
        LinearNoperspectiveSample = 7,
        Invalid = 8,
    }
}

open_enum! {
    /// `PSVResourceType`: how a PSV0 resource binding is accessed.
    pub enum ResourceType {
        Invalid = 0,
        Sampler = 1,
        CBV = 2,
        SRVTyped = 3,
        SRVRaw = 4,
        SRVStructured = 5,
        UAVTyped = 6,
        UAVRaw = 7,
        UAVStructured = 8,
        UAVStructuredWithCounter = 9,
    }
}

open_enum! {
    /// `PSVResourceKind` (= `DXIL::ResourceKind`): the shape of a PSV0 resource binding (v2+).
    pub enum ResourceKind {
        Invalid = 0,
        Texture1D = 1,
        Texture2D = 2,
        Texture2DMS = 3,
        Texture3D = 4,
        TextureCube = 5,
        Texture1DArray = 6,
        Texture2DArray = 7,
        Texture2DMSArray = 8,
        TextureCubeArray = 9,
        TypedBuffer = 10,
        RawBuffer = 11,
        StructuredBuffer = 12,
        CBuffer = 13,
        Sampler = 14,
        TBuffer = 15,
        RTAccelerationStructure = 16,
        FeedbackTexture2D = 17,
        FeedbackTexture2DArray = 18,
    }
}

impl ResourceKind {
    /// A texture of any dimension (sampler feedback maps included).
    pub const fn is_texture(self) -> bool {
        matches!(
            self,
            ResourceKind::Texture1D
                | ResourceKind::Texture2D
                | ResourceKind::Texture2DMS
                | ResourceKind::Texture3D
                | ResourceKind::TextureCube
                | ResourceKind::Texture1DArray
                | ResourceKind::Texture2DArray
                | ResourceKind::Texture2DMSArray
                | ResourceKind::TextureCubeArray
                | ResourceKind::FeedbackTexture2D
                | ResourceKind::FeedbackTexture2DArray
        )
    }

    /// A raw (byte address) or structured buffer: addressed in bytes, no format.
    pub const fn is_raw_like(self) -> bool {
        matches!(
            self,
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer
        )
    }
}

open_enum! {
    /// `DXIL::TessellatorDomain`.
    pub enum TessellatorDomain {
        Undefined = 0,
        IsoLine = 1,
        Tri = 2,
        Quad = 3,
    }
}

open_enum! {
    /// `DXIL::TessellatorOutputPrimitive`.
    pub enum TessellatorOutputPrimitive {
        Undefined = 0,
        Point = 1,
        Line = 2,
        TriangleCW = 3,
        TriangleCCW = 4,
    }
}

open_enum! {
    /// `DXIL::InputPrimitive` (geometry shader input); 8..=39 are control-point patches 1..=32.
    pub enum InputPrimitive {
        Undefined = 0,
        Point = 1,
        Line = 2,
        Triangle = 3,
        LineWithAdjacency = 6,
        TriangleWithAdjacency = 7,
    }
}

open_enum! {
    /// `DXIL::PrimitiveTopology` (geometry shader output topology).
    pub enum PrimitiveTopology {
        Undefined = 0,
        PointList = 1,
        LineList = 2,
        LineStrip = 3,
        TriangleList = 4,
        TriangleStrip = 5,
    }
}

open_enum! {
    /// `DXIL::MeshOutputTopology`.
    pub enum MeshOutputTopology {
        Undefined = 0,
        Line = 1,
        Triangle = 2,
    }
}

/// Narrows an enum or count to the byte a format field holds, for writers.
pub(crate) fn narrow_u8(value: u32, part: FourCC, what: &'static str) -> Result<u8> {
    u8::try_from(value).map_err(|_| {
        Error::new(
            ErrorKind::Limit,
            0,
            Some(part),
            format!("{what} value {value} does not fit in a byte"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_round_trips_including_unknown() {
        for v in 0..80u32 {
            assert_eq!(SystemValue::from_raw(v).raw(), v);
            assert_eq!(ShaderKind::from_raw(v).raw(), v);
        }
        assert_eq!(SystemValue::from_raw(64), SystemValue::Target);
        assert_eq!(SystemValue::from_raw(17), SystemValue::Other(17));
    }

    #[test]
    fn serializes_by_name() {
        let json = serde_json::to_string(&[ShaderKind::Compute, ShaderKind::Other(99)]).unwrap();
        assert_eq!(json, r#"["Compute",99]"#);
        assert_eq!(ResourceKind::CBuffer.to_string(), "CBuffer");
        assert_eq!(MinPrecision::Other(7).to_string(), "Other(7)");
    }
}
