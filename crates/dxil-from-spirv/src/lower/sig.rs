//! Signature elements: what each stage input and output becomes in DXIL's input, output and
//! patch-constant signatures, and how rows are assigned.
//!
//! Rows follow one rule in every stage, so that separately translated stages link: a user
//! varying at `Location L` is `TEXCOORD<L>` at row `L + 1` (row 0 belongs to `SV_Position`
//! whether or not the stage has it); render targets sit at their index; other system values
//! follow the last user row. Vertex inputs use rows `L` (there is no position before them).

use dxil_module::MdId;
use dxil_shader::{ComponentType, InterpolationMode, SemanticKind};

use crate::error::{Result, limit};
use crate::metadata::Md;

/// How a signature element is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// Rows and columns in the register file.
    Packed,
    /// In the signature, without registers (start row and column -1).
    NotPacked,
}

/// Which signature an element belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigKind {
    Input,
    Output,
    Patch,
}

/// One element.
#[derive(Clone, Debug)]
pub struct SigElement {
    pub name: &'static str,
    pub kind: SemanticKind,
    pub first_index: u32,
    pub comp: ComponentType,
    pub interp: InterpolationMode,
    pub rows: u32,
    pub cols: u8,
    /// The first column (the `Component` decoration).
    pub col: u8,
    /// `Some(row)` for an element whose row is fixed by its location (user varyings,
    /// render targets); `None` for system values placed after the user rows.
    pub fixed_row: Option<u32>,
    pub packing: Packing,
    /// Columns read (inputs) or written (outputs).
    pub usage: u8,
    pub stream: u32,
    /// Assigned by [`Signature::place`].
    pub start_row: i32,
    /// Row within the clip/cull block, for clip and cull distances (which share rows).
    pub block_row: Option<u32>,
}

/// A signature under construction.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub elems: Vec<SigElement>,
}

/// Most rows a signature may use.
const MAX_ROWS: u32 = 32;

impl Signature {
    pub fn add(&mut self, e: SigElement) -> Result<u32> {
        if self.elems.len() >= 256 {
            return Err(limit("more than 256 signature elements"));
        }
        self.elems.push(e);
        Ok(self.elems.len() as u32 - 1)
    }

    /// Assigns rows: fixed rows as given, the rest after them in order.
    pub fn place(&mut self) -> Result<()> {
        let mut next = 0u32;
        for e in &self.elems {
            if let (Some(r), Packing::Packed) = (e.fixed_row, e.packing) {
                next = next.max(r.saturating_add(e.rows));
            }
        }
        // The clip/cull block first, then the other system values.
        let block_rows = self
            .elems
            .iter()
            .filter_map(|e| e.block_row.map(|r| r + 1))
            .max()
            .unwrap_or(0);
        let block_base = next;
        next = next.saturating_add(block_rows);
        for e in &mut self.elems {
            if let Some(r) = e.block_row {
                e.start_row = block_base.saturating_add(r).min(MAX_ROWS) as i32;
                continue;
            }
            e.start_row = match e.packing {
                Packing::NotPacked => -1,
                Packing::Packed => match e.fixed_row {
                    Some(r) => r.min(MAX_ROWS) as i32,
                    None => {
                        let r = next;
                        next = next.saturating_add(e.rows);
                        r.min(MAX_ROWS) as i32
                    }
                },
            };
            if e.start_row >= 0 && (e.start_row as u32).saturating_add(e.rows) > MAX_ROWS {
                return Err(limit(format!(
                    "{}{} needs rows past the {MAX_ROWS} a signature has",
                    e.name, e.first_index
                )));
            }
        }
        // Elements sharing a row must interpolate alike.
        for (i, a) in self.elems.iter().enumerate() {
            for b in &self.elems[i + 1..] {
                if a.packing != Packing::Packed || b.packing != Packing::Packed {
                    continue;
                }
                let end = |e: &SigElement| i64::from(e.start_row) + i64::from(e.rows);
                let overlap = i64::from(a.start_row) < end(b) && i64::from(b.start_row) < end(a);
                if overlap && a.interp != b.interp {
                    return Err(crate::error::unsupported(format!(
                        "{}{} and {}{} share a row with different interpolation (D3D12 cannot)",
                        a.name, a.first_index, b.name, b.first_index
                    )));
                }
            }
        }
        Ok(())
    }

    /// The signature as metadata (`None` when empty).
    pub fn metadata(&self, md: &mut Md<'_>) -> Option<MdId> {
        if self.elems.is_empty() {
            return None;
        }
        let mut list = Vec::with_capacity(self.elems.len());
        for (id, e) in self.elems.iter().enumerate() {
            let indices: Vec<Option<MdId>> = (0..e.rows)
                .map(|r| Some(md.i32(i64::from(e.first_index) + i64::from(r))))
                .collect();
            let idx = md.node(&indices);
            let mut ext = Vec::new();
            if e.stream != 0 {
                ext.push(Some(md.i32(0)));
                ext.push(Some(md.i32(i64::from(e.stream))));
            }
            if e.usage != 0 {
                ext.push(Some(md.i32(3)));
                ext.push(Some(md.i32(i64::from(e.usage))));
            }
            let ext = if ext.is_empty() {
                None
            } else {
                Some(md.node(&ext))
            };
            let (row, col) = match e.packing {
                Packing::NotPacked => (-1i64, -1i64),
                Packing::Packed => (i64::from(e.start_row), i64::from(e.col)),
            };
            let ops = [
                Some(md.i32(id as i64)),
                Some(md.string(e.name)),
                Some(md.i8(i64::from(e.comp.raw()))),
                Some(md.i8(i64::from(e.kind.raw()))),
                Some(idx),
                Some(md.i8(i64::from(e.interp.raw()))),
                Some(md.i32(i64::from(e.rows))),
                Some(md.i8(i64::from(e.cols))),
                Some(md.i32(row)),
                Some(md.i8(col)),
                ext,
            ];
            list.push(Some(md.node(&ops)));
        }
        Some(md.node(&list))
    }
}
