//! Decorations of ids and struct members, kept sparse: most ids carry none.

use rustc_hash::FxHashMap as HashMap;

use spirv::{BuiltIn, Decoration, Op};

use super::Inst;
use crate::error::{Result, malformed};

/// Flag decorations (no operands), one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecorFlags(pub u32);

impl DecorFlags {
    pub const BLOCK: DecorFlags = DecorFlags(1 << 0);
    pub const BUFFER_BLOCK: DecorFlags = DecorFlags(1 << 1);
    pub const NON_WRITABLE: DecorFlags = DecorFlags(1 << 2);
    pub const NON_READABLE: DecorFlags = DecorFlags(1 << 3);
    pub const FLAT: DecorFlags = DecorFlags(1 << 4);
    pub const NO_PERSPECTIVE: DecorFlags = DecorFlags(1 << 5);
    pub const CENTROID: DecorFlags = DecorFlags(1 << 6);
    pub const SAMPLE: DecorFlags = DecorFlags(1 << 7);
    pub const PATCH: DecorFlags = DecorFlags(1 << 8);
    pub const INVARIANT: DecorFlags = DecorFlags(1 << 9);
    pub const NON_UNIFORM: DecorFlags = DecorFlags(1 << 10);
    pub const COHERENT: DecorFlags = DecorFlags(1 << 11);
    pub const VOLATILE: DecorFlags = DecorFlags(1 << 12);
    pub const ROW_MAJOR: DecorFlags = DecorFlags(1 << 13);
    pub const COL_MAJOR: DecorFlags = DecorFlags(1 << 14);
    pub const PER_PRIMITIVE: DecorFlags = DecorFlags(1 << 15);
    pub const PER_VERTEX: DecorFlags = DecorFlags(1 << 16);
    pub const NO_CONTRACTION: DecorFlags = DecorFlags(1 << 17);
    pub const RESTRICT: DecorFlags = DecorFlags(1 << 18);
    pub const ALIASED: DecorFlags = DecorFlags(1 << 19);
    pub const RELAXED_PRECISION: DecorFlags = DecorFlags(1 << 20);

    #[inline]
    pub fn contains(self, f: DecorFlags) -> bool {
        self.0 & f.0 == f.0
    }
}

/// Decorations of one id.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decor {
    pub flags: DecorFlags,
    pub set: Option<u32>,
    pub binding: Option<u32>,
    pub builtin: Option<BuiltIn>,
    pub location: Option<u32>,
    pub component: Option<u32>,
    pub index: Option<u32>,
    pub spec_id: Option<u32>,
    pub array_stride: Option<u32>,
    pub input_attachment: Option<u32>,
    pub stream: Option<u32>,
}

/// Decorations of one struct member.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemberDecor {
    pub flags: DecorFlags,
    pub offset: Option<u32>,
    pub matrix_stride: Option<u32>,
    pub builtin: Option<BuiltIn>,
    pub location: Option<u32>,
    pub component: Option<u32>,
    pub stream: Option<u32>,
}

/// Every decoration of a module.
#[derive(Debug, Default)]
pub struct Decorations {
    /// id → index + 1 into `items` (0 = none). Grows to the largest decorated id.
    by_id: Vec<u32>,
    items: Vec<Decor>,
    members: HashMap<(u32, u32), MemberDecor>,
}

static NONE: Decor = Decor {
    flags: DecorFlags(0),
    set: None,
    binding: None,
    builtin: None,
    location: None,
    component: None,
    index: None,
    spec_id: None,
    array_stride: None,
    input_attachment: None,
    stream: None,
};

fn flag_of(d: Decoration) -> Option<DecorFlags> {
    Some(match d {
        Decoration::Block => DecorFlags::BLOCK,
        Decoration::BufferBlock => DecorFlags::BUFFER_BLOCK,
        Decoration::NonWritable => DecorFlags::NON_WRITABLE,
        Decoration::NonReadable => DecorFlags::NON_READABLE,
        Decoration::Flat => DecorFlags::FLAT,
        Decoration::NoPerspective => DecorFlags::NO_PERSPECTIVE,
        Decoration::Centroid => DecorFlags::CENTROID,
        Decoration::Sample => DecorFlags::SAMPLE,
        Decoration::Patch => DecorFlags::PATCH,
        Decoration::Invariant => DecorFlags::INVARIANT,
        Decoration::NonUniform => DecorFlags::NON_UNIFORM,
        Decoration::Coherent => DecorFlags::COHERENT,
        Decoration::Volatile => DecorFlags::VOLATILE,
        Decoration::RowMajor => DecorFlags::ROW_MAJOR,
        Decoration::ColMajor => DecorFlags::COL_MAJOR,
        Decoration::PerPrimitiveEXT => DecorFlags::PER_PRIMITIVE,
        Decoration::PerVertexKHR => DecorFlags::PER_VERTEX,
        Decoration::NoContraction => DecorFlags::NO_CONTRACTION,
        Decoration::Restrict => DecorFlags::RESTRICT,
        Decoration::Aliased => DecorFlags::ALIASED,
        Decoration::RelaxedPrecision => DecorFlags::RELAXED_PRECISION,
        _ => return None,
    })
}

impl Decorations {
    /// The decorations of an id (all empty when it has none).
    #[inline]
    pub fn get(&self, id: u32) -> &Decor {
        match self.by_id.get(id as usize) {
            Some(&i) if i != 0 => self.items.get(i as usize - 1).unwrap_or(&NONE),
            _ => &NONE,
        }
    }

    pub fn member(&self, struct_id: u32, member: u32) -> MemberDecor {
        self.members
            .get(&(struct_id, member))
            .copied()
            .unwrap_or_default()
    }

    fn slot(&mut self, id: u32, bound: usize) -> Result<&mut Decor> {
        let i = id as usize;
        if i >= bound {
            return Err(malformed(format!(
                "decorated id %{id} is not below the bound"
            )));
        }
        if self.by_id.len() <= i {
            self.by_id.resize(i + 1, 0);
        }
        if self.by_id[i] == 0 {
            self.items.push(Decor::default());
            self.by_id[i] = self.items.len() as u32;
        }
        let k = self.by_id[i] as usize - 1;
        Ok(&mut self.items[k])
    }

    pub(super) fn decorate(&mut self, inst: &Inst<'_>, bound: usize) -> Result<()> {
        let id = inst.word(0)?;
        let Some(d) = Decoration::from_u32(inst.word(1)?) else {
            return Ok(());
        };
        // Only ids with a literal operand read it; `DecorateId` operands are ids.
        let arg = || inst.word(2);
        if inst.op() == Some(Op::DecorateString) {
            return Ok(());
        }
        let slot = self.slot(id, bound)?;
        if let Some(f) = flag_of(d) {
            slot.flags.0 |= f.0;
            return Ok(());
        }
        match d {
            Decoration::DescriptorSet => slot.set = Some(arg()?),
            Decoration::Binding => slot.binding = Some(arg()?),
            Decoration::BuiltIn => {
                slot.builtin =
                    Some(BuiltIn::from_u32(arg()?).ok_or_else(|| malformed("unknown built-in"))?)
            }
            Decoration::Location => slot.location = Some(arg()?),
            Decoration::Component => slot.component = Some(arg()?),
            Decoration::Index => slot.index = Some(arg()?),
            Decoration::SpecId => slot.spec_id = Some(arg()?),
            Decoration::ArrayStride => slot.array_stride = Some(arg()?),
            Decoration::InputAttachmentIndex => slot.input_attachment = Some(arg()?),
            Decoration::Stream => slot.stream = Some(arg()?),
            _ => {}
        }
        Ok(())
    }

    pub(super) fn decorate_member(&mut self, inst: &Inst<'_>) -> Result<()> {
        if inst.op() == Some(Op::MemberDecorateString) {
            return Ok(());
        }
        let id = inst.word(0)?;
        let member = inst.word(1)?;
        let Some(d) = Decoration::from_u32(inst.word(2)?) else {
            return Ok(());
        };
        let arg = || inst.word(3);
        let slot = self.members.entry((id, member)).or_default();
        if let Some(f) = flag_of(d) {
            slot.flags.0 |= f.0;
            return Ok(());
        }
        match d {
            Decoration::Offset => slot.offset = Some(arg()?),
            Decoration::MatrixStride => slot.matrix_stride = Some(arg()?),
            Decoration::BuiltIn => {
                slot.builtin =
                    Some(BuiltIn::from_u32(arg()?).ok_or_else(|| malformed("unknown built-in"))?)
            }
            Decoration::Location => slot.location = Some(arg()?),
            Decoration::Component => slot.component = Some(arg()?),
            Decoration::Stream => slot.stream = Some(arg()?),
            _ => {}
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) {}

    /// Whether any member of a struct is a built-in (a `gl_PerVertex`-style block).
    pub fn has_member_builtin(&self, struct_id: u32) -> bool {
        self.members
            .iter()
            .any(|((s, _), d)| *s == struct_id && d.builtin.is_some())
    }
}
