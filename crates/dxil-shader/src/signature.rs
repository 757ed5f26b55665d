//! Signature elements of an entry point (`!{inputs, outputs, patch constant or primitive}`).

use dxil_module::MdId;
use serde::Serialize;

use crate::enums::{ComponentType, InterpolationMode, SemanticKind};
use crate::error::{ErrorKind, Result};
use crate::md::{Md, Node};
use crate::module::RawProperty;
use crate::ser;

/// Extended-property tags of a signature element.
pub mod tag {
    pub const OUTPUT_STREAM: u32 = 0;
    /// High-level only; never in final DXIL.
    pub const GLOBAL_SYMBOL: u32 = 1;
    pub const DYNAMIC_INDEX_COMPONENT_MASK: u32 = 2;
    pub const USAGE_COMPONENT_MASK: u32 = 3;
}

/// One signature element (11 fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SignatureElement {
    /// Field 0: the element's ID, the `inputSigId`/`outputSigId` of `loadInput`/`storeOutput`.
    pub id: u32,
    /// Field 1: semantic name (`SV_Position`, `TEXCOORD`).
    pub name: String,
    /// Field 2.
    pub component_type: ComponentType,
    /// Field 3: the effective system value.
    pub semantic_kind: SemanticKind,
    /// Field 4: one semantic index per row.
    pub semantic_indices: Vec<u32>,
    /// Field 5.
    pub interpolation_mode: InterpolationMode,
    /// Field 6.
    pub rows: u32,
    /// Field 7.
    pub cols: u8,
    /// Field 8: packed start row, -1 when not allocated.
    pub start_row: i32,
    /// Field 9: packed start column, -1 when not allocated.
    pub start_col: i8,
    /// Extended property 0: the geometry-shader stream.
    pub output_stream: Option<u32>,
    /// Extended property 2: components that are dynamically indexed.
    pub dynamic_index_mask: Option<u8>,
    /// Extended property 3: components that are read (inputs) or written (outputs).
    pub usage_mask: Option<u8>,
    /// Extended properties this crate does not decode.
    pub unknown_properties: Vec<RawProperty>,
    #[serde(serialize_with = "ser::md")]
    pub node: MdId,
}

impl SignatureElement {
    pub fn is_allocated(&self) -> bool {
        self.start_row >= 0 && self.start_col >= 0
    }

    /// Whether this is a system-generated value or system value rather than an arbitrary
    /// user semantic.
    pub fn is_system_value(&self) -> bool {
        self.semantic_kind != SemanticKind::Arbitrary
    }
}

/// The three signatures of an entry point. The third is the patch-constant signature for
/// hull and domain shaders and the primitive signature for mesh shaders.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct Signatures {
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    pub patch_constant_or_primitive: Vec<SignatureElement>,
}

impl Signatures {
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
            && self.outputs.is_empty()
            && self.patch_constant_or_primitive.is_empty()
    }
}

pub(crate) fn read_signatures(md: Md<'_>, n: Node<'_>) -> Result<Signatures> {
    if n.len() != 3 {
        return Err(n.node_error(
            ErrorKind::Malformed,
            format!(
                "{} operands, expected 3 (inputs, outputs, patch constants)",
                n.len()
            ),
        ));
    }
    let mut out = Signatures::default();
    let lists = [
        ("inputs", &mut out.inputs),
        ("outputs", &mut out.outputs),
        ("patch constants", &mut out.patch_constant_or_primitive),
    ];
    for (i, (field, list)) in lists.into_iter().enumerate() {
        let Some(l) = n.node_at(i, field, "signature element list")? else {
            continue;
        };
        list.reserve(l.len());
        for (j, op) in l.ops().enumerate() {
            let id = op.ok_or_else(|| {
                l.error(ErrorKind::Malformed, format!("element {j}"), "null element")
            })?;
            list.push(read_element(md, md.node(id, "signature element")?)?);
        }
    }
    Ok(out)
}

fn read_element(md: Md<'_>, n: Node<'_>) -> Result<SignatureElement> {
    n.expect_len(10)?;
    let mut semantic_indices = Vec::new();
    if let Some(v) = n.node_at(4, "semantic indices", "semantic index list")? {
        semantic_indices.reserve(v.len());
        for i in 0..v.len() {
            semantic_indices.push(v.u32_at(i, "semantic index")?);
        }
    }
    let cols = n.u64_at(7, "cols")?;
    let start_col = n.i64_at(9, "start col")?;
    let mut e = SignatureElement {
        id: n.u32_at(0, "id")?,
        name: n.string_at(1, "name")?,
        component_type: ComponentType::from_raw(n.u32_at(2, "component type")?),
        semantic_kind: SemanticKind::from_raw(n.u32_at(3, "semantic kind")?),
        semantic_indices,
        interpolation_mode: InterpolationMode::from_raw(n.u32_at(5, "interpolation mode")?),
        rows: n.u32_at(6, "rows")?,
        cols: u8::try_from(cols)
            .map_err(|_| n.error(ErrorKind::Invalid, "cols", format!("{cols} columns")))?,
        start_row: n.i32_at(8, "start row")?,
        start_col: i8::try_from(start_col).map_err(|_| {
            n.error(
                ErrorKind::Invalid,
                "start col",
                format!("start column {start_col}"),
            )
        })?,
        output_stream: None,
        dynamic_index_mask: None,
        usage_mask: None,
        unknown_properties: Vec::new(),
        node: n.id,
    };
    if let Some(p) = n.node_at(10, "extended properties", "signature element properties")? {
        if !p.len().is_multiple_of(2) {
            return Err(p.node_error(
                ErrorKind::Malformed,
                format!("{} operands: tags and values must pair up", p.len()),
            ));
        }
        for i in (0..p.len()).step_by(2) {
            let t = p.u32_at(i, "tag")?;
            let mask = |field| -> Result<u8> {
                let v = p.u32_at(i + 1, field)?;
                u8::try_from(v).map_err(|_| p.error(ErrorKind::Invalid, field, format!("mask {v}")))
            };
            match t {
                tag::OUTPUT_STREAM => e.output_stream = Some(p.u32_at(i + 1, "output stream")?),
                tag::DYNAMIC_INDEX_COMPONENT_MASK => {
                    e.dynamic_index_mask = Some(mask("dynamic index mask")?)
                }
                tag::USAGE_COMPONENT_MASK => e.usage_mask = Some(mask("usage mask")?),
                _ => e
                    .unknown_properties
                    .push(RawProperty::new(md, t, p.op(i + 1))),
            }
        }
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use crate::enums::{ComponentType, InterpolationMode, SemanticKind};
    use crate::error::ErrorKind;
    use crate::module::DxilModule;
    use crate::testutil::Builder;
    use dxil_module::MdId;

    fn element(
        b: &mut Builder,
        id: i64,
        name: &str,
        fields: [i64; 8],
        props: Option<MdId>,
    ) -> MdId {
        let [comp, kind, interp, rows, cols, row, col, sem] = fields;
        let (i, n, c, k) = (b.i32(id), b.str(name), b.int(8, comp), b.int(8, kind));
        let idx = b.ints(&(0..rows).map(|r| sem + r).collect::<Vec<_>>());
        let (ip, r, cl, sr, sc) = (
            b.int(8, interp),
            b.i32(rows),
            b.int(8, cols),
            b.i32(row),
            b.int(8, col),
        );
        b.node(&[
            Some(i),
            Some(n),
            Some(c),
            Some(k),
            Some(idx),
            Some(ip),
            Some(r),
            Some(cl),
            Some(sr),
            Some(sc),
            props,
        ])
    }

    #[test]
    fn elements_decode_with_extended_properties() {
        let mut b = Builder::new();
        b.shader_model("ps", 6, 0);
        let void = b.void();
        let f = b.function("main", void, &[]);
        let usage = b.ints(&[3, 15, 2, 1]);
        let pos = element(
            &mut b,
            0,
            "SV_Position",
            [9, 3, 4, 1, 4, 0, 0, 0],
            Some(usage),
        );
        let tex = element(&mut b, 1, "TEXCOORD", [9, 0, 2, 2, 2, 1, 0, 3], None);
        let stream = b.ints(&[0, 1, 77, 4]);
        let target = element(
            &mut b,
            0,
            "SV_Target",
            [9, 16, 0, 1, 4, -1, -1, 0],
            Some(stream),
        );
        let inputs = b.node(&[Some(pos), Some(tex)]);
        let outputs = b.node(&[Some(target)]);
        let sigs = b.node(&[Some(inputs), Some(outputs), None]);
        let fmd = b.function_md(f);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), Some(sigs), None, None]);
        b.named("dx.entryPoints", &[entry]);
        let d = DxilModule::from_module(&b.m).unwrap();
        let s = &d.entry_points[0].signatures;
        assert_eq!(s.inputs.len(), 2);
        let p = &s.inputs[0];
        assert_eq!(p.name, "SV_Position");
        assert_eq!(p.component_type, ComponentType::F32);
        assert_eq!(p.semantic_kind, SemanticKind::Position);
        assert_eq!(p.interpolation_mode, InterpolationMode::LinearNoperspective);
        assert_eq!(p.usage_mask, Some(15));
        assert_eq!(p.dynamic_index_mask, Some(1));
        assert!(p.is_system_value() && p.is_allocated());
        let t = &s.inputs[1];
        assert_eq!(t.semantic_indices, [3, 4]);
        assert_eq!((t.rows, t.cols, t.start_row, t.start_col), (2, 2, 1, 0));
        assert!(!t.is_system_value());
        let o = &s.outputs[0];
        assert_eq!((o.start_row, o.start_col), (-1, -1));
        assert!(!o.is_allocated());
        assert_eq!(o.output_stream, Some(1));
        assert_eq!(o.unknown_properties[0].tag, 77);
        assert!(s.patch_constant_or_primitive.is_empty());
    }

    #[test]
    fn bad_elements_are_reported() {
        let mut b = Builder::new();
        b.shader_model("vs", 6, 0);
        let void = b.void();
        let f = b.function("main", void, &[]);
        let el = element(&mut b, 0, "A", [9, 0, 0, 1, 4, 0, 0, 0], None);
        // Columns written as an i32 of 300 do not fit the field.
        let mut ops: Vec<_> = b.m.metadata.node_operands(el).collect();
        ops[7] = Some(b.i32(300));
        let el = b.node(&ops);
        let inputs = b.node(&[Some(el)]);
        let sigs = b.node(&[Some(inputs), None, None]);
        let fmd = b.function_md(f);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), Some(sigs), None, None]);
        b.named("dx.entryPoints", &[entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(
            (e.kind(), e.node(), e.field()),
            (ErrorKind::Invalid, Some(el), Some("cols"))
        );

        let mut b = Builder::new();
        b.shader_model("vs", 6, 0);
        let f = b.function("main", void, &[]);
        let short = b.ints(&[0, 1]);
        let inputs = b.node(&[Some(short)]);
        let sigs = b.node(&[Some(inputs), None]);
        let fmd = b.function_md(f);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), Some(sigs), None, None]);
        b.named("dx.entryPoints", &[entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(e.node(), Some(sigs));
    }
}
