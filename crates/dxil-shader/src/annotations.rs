//! `!dx.typeAnnotations`: struct layouts (field names, constant-buffer offsets, component
//! types) and function parameter annotations. The final DXIL part of a non-library usually
//! has none (they live in the reflection part); libraries keep them.

use dxil_module::{FuncId, MdId, TypeData, TypeId, ValueRef};
use serde::Serialize;

use crate::enums::{ComponentType, InterpolationMode};
use crate::error::{ErrorKind, Result};
use crate::md::{Md, Node};
use crate::module::RawProperty;
use crate::ser;

/// Field annotation tags (`kDxilFieldAnnotation*Tag`).
pub mod tag {
    pub const SNORM: u32 = 0;
    pub const UNORM: u32 = 1;
    pub const MATRIX: u32 = 2;
    pub const CBUFFER_OFFSET: u32 = 3;
    pub const SEMANTIC: u32 = 4;
    pub const INTERPOLATION_MODE: u32 = 5;
    pub const FIELD_NAME: u32 = 6;
    pub const COMPONENT_TYPE: u32 = 7;
    pub const PRECISE: u32 = 8;
    pub const CBUFFER_USED: u32 = 9;
    pub const RESOURCE_PROPERTIES: u32 = 10;
    pub const BIT_FIELDS: u32 = 11;
    pub const BIT_FIELD_WIDTH: u32 = 12;
    pub const VECTOR_SIZE: u32 = 13;
}

/// The annotations of one struct field or function parameter.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct FieldAnnotation {
    pub name: Option<String>,
    /// Byte offset in a constant buffer.
    pub cbuffer_offset: Option<u32>,
    pub component_type: Option<ComponentType>,
    /// `(rows, cols, orientation)` of a matrix field (orientation 1 = row major, 2 = column
    /// major).
    pub matrix: Option<[u32; 3]>,
    pub semantic: Option<String>,
    pub interpolation_mode: Option<InterpolationMode>,
    pub precise: Option<bool>,
    pub cbuffer_used: Option<bool>,
    pub vector_size: Option<u32>,
    /// `snorm`/`unorm` (tags 0 and 1).
    pub snorm: Option<bool>,
    pub unorm: Option<bool>,
    /// Tags not decoded here (resource properties, bit fields, unknown), in order.
    pub other: Vec<RawProperty>,
}

/// Annotation of one struct type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StructAnnotation {
    #[serde(serialize_with = "ser::opt_type")]
    pub ty: Option<TypeId>,
    pub type_name: Option<String>,
    /// The size the struct has in a constant buffer.
    pub size_in_bytes: u32,
    pub fields: Vec<FieldAnnotation>,
    /// The DXIL 1.5+ extended operand (template arguments), not decoded.
    #[serde(serialize_with = "ser::opt_md")]
    pub extended: Option<MdId>,
}

/// Annotation of one function parameter (index 0 is the return value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParameterAnnotation {
    /// `DXIL::InputQualifier` (in, out, inout, ...).
    pub input_qualifier: u32,
    pub field: FieldAnnotation,
    pub semantic_indices: Vec<u32>,
}

/// Annotation of one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionAnnotation {
    #[serde(serialize_with = "ser::opt_func")]
    pub function: Option<FuncId>,
    /// The return value, then each parameter.
    pub parameters: Vec<ParameterAnnotation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct TypeAnnotations {
    pub structs: Vec<StructAnnotation>,
    pub functions: Vec<FunctionAnnotation>,
}

impl TypeAnnotations {
    pub fn is_empty(&self) -> bool {
        self.structs.is_empty() && self.functions.is_empty()
    }

    pub fn struct_annotation(&self, ty: TypeId) -> Option<&StructAnnotation> {
        self.structs.iter().find(|s| s.ty == Some(ty))
    }
}

const STRUCT_TAG: u32 = 0;
const FUNCTION_TAG: u32 = 1;

pub(crate) fn read_type_annotations(md: Md<'_>, operands: &[MdId]) -> Result<TypeAnnotations> {
    let mut out = TypeAnnotations::default();
    for &id in operands {
        let n = md.node(id, "dx.typeAnnotations list")?;
        if n.len().is_multiple_of(2) {
            return Err(n.node_error(
                ErrorKind::Malformed,
                "expected a tag followed by (item, annotation) pairs",
            ));
        }
        match n.u32_at(0, "tag")? {
            STRUCT_TAG => {
                for i in (1..n.len()).step_by(2) {
                    out.structs.push(read_struct(md, &n, i)?);
                }
            }
            FUNCTION_TAG => {
                for i in (1..n.len()).step_by(2) {
                    out.functions.push(read_function(md, &n, i)?);
                }
            }
            t => {
                return Err(n.error(
                    ErrorKind::Invalid,
                    "tag",
                    format!("unknown annotation list tag {t}"),
                ));
            }
        }
    }
    Ok(out)
}

fn read_struct(md: Md<'_>, n: &Node<'_>, i: usize) -> Result<StructAnnotation> {
    let ty = n.op(i).and_then(|t| md.value(t)).map(|(ty, _)| ty);
    let (type_name, field_count) = match ty.map(|t| md.module.types.data(t)) {
        Some(TypeData::Struct { name, elems, .. }) => (name.clone(), Some(elems.len())),
        _ => (None, None),
    };
    let a = n
        .node_at(i + 1, "struct annotation", "struct annotation")?
        .ok_or_else(|| n.error(ErrorKind::Missing, "struct annotation", "null"))?;
    a.expect_len(1)?;
    let size_in_bytes = a.u32_at(0, "size")?;
    let fields_end = match field_count {
        Some(c) if a.len() == c + 2 => c + 1,
        _ => a.len(),
    };
    let mut fields = Vec::with_capacity(fields_end.saturating_sub(1));
    for f in 1..fields_end {
        let fa = a
            .node_at(f, "field", "field annotation")?
            .ok_or_else(|| a.error(ErrorKind::Missing, "field", "null"))?;
        fields.push(read_field(md, &fa)?);
    }
    Ok(StructAnnotation {
        ty,
        type_name,
        size_in_bytes,
        fields,
        extended: if fields_end < a.len() {
            a.op(fields_end)
        } else {
            None
        },
    })
}

fn read_function(md: Md<'_>, n: &Node<'_>, i: usize) -> Result<FunctionAnnotation> {
    let function = n
        .op(i)
        .and_then(|f| md.value(f))
        .and_then(|(_, v)| match v.get() {
            ValueRef::Function(f) => Some(f),
            _ => None,
        });
    let list = n
        .node_at(i + 1, "parameters", "function annotation")?
        .ok_or_else(|| n.error(ErrorKind::Missing, "parameters", "null"))?;
    let mut parameters = Vec::with_capacity(list.len());
    for p in 0..list.len() {
        let pa = list
            .node_at(p, "parameter", "parameter annotation")?
            .ok_or_else(|| list.error(ErrorKind::Missing, "parameter", "null"))?;
        pa.expect_len(3)?;
        let field = match pa.node_at(1, "field", "field annotation")? {
            Some(f) => read_field(md, &f)?,
            None => FieldAnnotation::default(),
        };
        let mut semantic_indices = Vec::new();
        if let Some(s) = pa.node_at(2, "semantic indices", "semantic index list")? {
            for k in 0..s.len() {
                semantic_indices.push(s.u32_at(k, "semantic index")?);
            }
        }
        parameters.push(ParameterAnnotation {
            input_qualifier: pa.u32_at(0, "input qualifier")?,
            field,
            semantic_indices,
        });
    }
    Ok(FunctionAnnotation {
        function,
        parameters,
    })
}

fn read_field(md: Md<'_>, n: &Node<'_>) -> Result<FieldAnnotation> {
    if !n.len().is_multiple_of(2) {
        return Err(n.node_error(
            ErrorKind::Malformed,
            format!("{} operands: tags and values must pair up", n.len()),
        ));
    }
    let mut f = FieldAnnotation::default();
    for i in (0..n.len()).step_by(2) {
        let t = n.u32_at(i, "tag")?;
        let v = i + 1;
        match t {
            tag::SNORM => f.snorm = Some(n.bool_at(v, "snorm")?),
            tag::UNORM => f.unorm = Some(n.bool_at(v, "unorm")?),
            tag::MATRIX => {
                let m = n
                    .node_at(v, "matrix", "matrix annotation")?
                    .ok_or_else(|| n.error(ErrorKind::Missing, "matrix", "null"))?;
                m.expect_len(3)?;
                f.matrix = Some([
                    m.u32_at(0, "rows")?,
                    m.u32_at(1, "cols")?,
                    m.u32_at(2, "orientation")?,
                ]);
            }
            tag::CBUFFER_OFFSET => f.cbuffer_offset = Some(n.u32_at(v, "cbuffer offset")?),
            tag::SEMANTIC => f.semantic = Some(n.string_at(v, "semantic")?),
            tag::INTERPOLATION_MODE => {
                f.interpolation_mode = Some(InterpolationMode::from_raw(
                    n.u32_at(v, "interpolation mode")?,
                ))
            }
            tag::FIELD_NAME => f.name = Some(n.string_at(v, "field name")?),
            tag::COMPONENT_TYPE => {
                f.component_type = Some(ComponentType::from_raw(n.u32_at(v, "component type")?))
            }
            tag::PRECISE => f.precise = Some(n.bool_at(v, "precise")?),
            tag::CBUFFER_USED => f.cbuffer_used = Some(n.bool_at(v, "cbuffer used")?),
            tag::VECTOR_SIZE => f.vector_size = Some(n.u32_at(v, "vector size")?),
            _ => f.other.push(RawProperty::new(md, t, n.op(v))),
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::DxilModule;
    use crate::testutil::Builder;

    #[test]
    fn struct_and_function_annotations_decode() {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let void = b.void();
        let f32t = b.ty(TypeData::Float);
        let i32t = b.int_ty(32);
        let s = b.m.types.push(TypeData::Struct {
            name: Some("struct.S".into()),
            packed: false,
            opaque: false,
            elems: vec![f32t, i32t],
        });
        let undef = b.undef(s);
        let s_md = b.value(s, undef);
        let (t6, name, t3, off, t7, ct) =
            (b.i32(6), b.str("h"), b.i32(3), b.i32(0), b.i32(7), b.i32(9));
        let f0 = b.node(&[
            Some(t6),
            Some(name),
            Some(t3),
            Some(off),
            Some(t7),
            Some(ct),
        ]);
        let mat = b.ints(&[4, 4, 2]);
        let (t2, t8, yes, t99, v99) = (b.i32(2), b.i32(8), b.int(1, -1), b.i32(99), b.i32(1));
        let f1 = b.node(&[
            Some(t2),
            Some(mat),
            Some(t8),
            Some(yes),
            Some(t99),
            Some(v99),
        ]);
        let size = b.i32(8);
        let template = b.ints(&[0]);
        let sa = b.node(&[Some(size), Some(f0), Some(f1), Some(template)]);
        let tag0 = b.i32(0);
        let structs = b.node(&[Some(tag0), Some(s_md), Some(sa)]);

        let func = b.function("f", void, &[]);
        let fmd = b.function_md(func);
        let empty = b.node(&[]);
        let (q, t4, sem) = (b.i32(1), b.i32(4), b.str("SV_Target"));
        let field = b.node(&[Some(t4), Some(sem)]);
        let idx = b.ints(&[0]);
        let ret = b.node(&[Some(q), Some(empty), Some(empty)]);
        let param = b.node(&[Some(q), Some(field), Some(idx)]);
        let params = b.node(&[Some(ret), Some(param)]);
        let tag1 = b.i32(1);
        let funcs = b.node(&[Some(tag1), Some(fmd), Some(params)]);
        b.named("dx.typeAnnotations", &[structs, funcs]);
        let empty_name = b.str("");
        let e = b.node(&[None, Some(empty_name), None, None, None]);
        b.named("dx.entryPoints", &[e]);

        let d = DxilModule::from_module(&b.m).unwrap();
        let a = &d.type_annotations;
        let st = a.struct_annotation(s).unwrap();
        assert_eq!(st.type_name.as_deref(), Some("struct.S"));
        assert_eq!(st.size_in_bytes, 8);
        assert_eq!(st.fields.len(), 2);
        assert_eq!(st.extended, Some(template));
        let f0 = &st.fields[0];
        assert_eq!(f0.name.as_deref(), Some("h"));
        assert_eq!(f0.cbuffer_offset, Some(0));
        assert_eq!(f0.component_type, Some(ComponentType::F32));
        let f1 = &st.fields[1];
        assert_eq!(f1.matrix, Some([4, 4, 2]));
        assert_eq!(f1.precise, Some(true));
        assert_eq!((f1.other[0].tag, f1.other[0].int), (99, Some(1)));
        let fa = &a.functions[0];
        assert_eq!(fa.function, Some(func));
        assert_eq!(fa.parameters.len(), 2);
        assert_eq!(
            fa.parameters[1].field.semantic.as_deref(),
            Some("SV_Target")
        );
        assert_eq!(fa.parameters[1].semantic_indices, [0]);
        assert_eq!(fa.parameters[0].input_qualifier, 1);

        let lean = DxilModule::for_translation(&b.m).unwrap();
        assert!(lean.type_annotations.structs.is_empty());
        assert!(lean.type_annotations.functions.is_empty());
    }

    #[test]
    fn unknown_list_tag_is_an_error() {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let list = b.ints(&[5]);
        b.named("dx.typeAnnotations", &[list]);
        let empty_name = b.str("");
        let e = b.node(&[None, Some(empty_name), None, None, None]);
        b.named("dx.entryPoints", &[e]);
        let err = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!((err.node(), err.field()), (Some(list), Some("tag")));
        // Translators do not read the annotations, so their view does not fail on them.
        assert!(DxilModule::for_translation(&b.m).is_ok());
    }
}
