//! Instructions of a function body.

use crate::entity::{AttrListId, BlockId, PoolRange, TypeId};
use crate::value::Value;

/// Binary operators. The bitcode shares codes between integer and floating-point forms; readers
/// pick the floating-point variant from the operand type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    Add,
    FAdd,
    Sub,
    FSub,
    Mul,
    FMul,
    UDiv,
    SDiv,
    FDiv,
    URem,
    SRem,
    FRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

impl BinOp {
    /// Decodes a bitcode binop code (`BINOP_*`) for integer (`float = false`) or FP operands.
    pub fn from_code(code: u64, float: bool) -> Option<BinOp> {
        use BinOp::*;
        Some(match (code, float) {
            (0, false) => Add,
            (0, true) => FAdd,
            (1, false) => Sub,
            (1, true) => FSub,
            (2, false) => Mul,
            (2, true) => FMul,
            (3, false) => UDiv,
            (4, false) => SDiv,
            (4, true) => FDiv,
            (5, false) => URem,
            (6, false) => SRem,
            (6, true) => FRem,
            (7, false) => Shl,
            (8, false) => LShr,
            (9, false) => AShr,
            (10, false) => And,
            (11, false) => Or,
            (12, false) => Xor,
            _ => return None,
        })
    }

    pub fn code(self) -> u64 {
        use BinOp::*;
        match self {
            Add | FAdd => 0,
            Sub | FSub => 1,
            Mul | FMul => 2,
            UDiv => 3,
            SDiv | FDiv => 4,
            URem => 5,
            SRem | FRem => 6,
            Shl => 7,
            LShr => 8,
            AShr => 9,
            And => 10,
            Or => 11,
            Xor => 12,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
        )
    }

    /// The LLVM assembly mnemonic.
    pub fn name(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "add",
            FAdd => "fadd",
            Sub => "sub",
            FSub => "fsub",
            Mul => "mul",
            FMul => "fmul",
            UDiv => "udiv",
            SDiv => "sdiv",
            FDiv => "fdiv",
            URem => "urem",
            SRem => "srem",
            FRem => "frem",
            Shl => "shl",
            LShr => "lshr",
            AShr => "ashr",
            And => "and",
            Or => "or",
            Xor => "xor",
        }
    }

    /// Which flag family the optional flags operand encodes.
    pub fn flag_kind(self) -> BinFlagKind {
        use BinOp::*;
        match self {
            Add | Sub | Mul | Shl => BinFlagKind::Overflow,
            UDiv | SDiv | LShr | AShr => BinFlagKind::Exact,
            FAdd | FSub | FMul | FDiv | FRem => BinFlagKind::FastMath,
            _ => BinFlagKind::None,
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BinFlagKind {
    None,
    /// bit 0 = nuw, bit 1 = nsw.
    Overflow,
    /// bit 0 = exact.
    Exact,
    /// [`fast_math`] bits.
    FastMath,
}

/// Fast-math flag bits as stored in LLVM 3.7 bitcode.
pub mod fast_math {
    pub const UNSAFE_ALGEBRA: u8 = 1;
    pub const NO_NANS: u8 = 2;
    pub const NO_INFS: u8 = 4;
    pub const NO_SIGNED_ZEROS: u8 = 8;
    pub const ALLOW_RECIPROCAL: u8 = 16;
}

/// Cast operators, numbered as in the bitcode.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FPToUI,
    FPToSI,
    UIToFP,
    SIToFP,
    FPTrunc,
    FPExt,
    PtrToInt,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
}

impl CastOp {
    pub fn from_code(code: u64) -> Option<CastOp> {
        use CastOp::*;
        Some(match code {
            0 => Trunc,
            1 => ZExt,
            2 => SExt,
            3 => FPToUI,
            4 => FPToSI,
            5 => UIToFP,
            6 => SIToFP,
            7 => FPTrunc,
            8 => FPExt,
            9 => PtrToInt,
            10 => IntToPtr,
            11 => BitCast,
            12 => AddrSpaceCast,
            _ => return None,
        })
    }

    pub fn code(self) -> u64 {
        self as u64
    }

    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Trunc => "trunc",
            ZExt => "zext",
            SExt => "sext",
            FPToUI => "fptoui",
            FPToSI => "fptosi",
            UIToFP => "uitofp",
            SIToFP => "sitofp",
            FPTrunc => "fptrunc",
            FPExt => "fpext",
            PtrToInt => "ptrtoint",
            IntToPtr => "inttoptr",
            BitCast => "bitcast",
            AddrSpaceCast => "addrspacecast",
        }
    }
}

/// Comparison predicate, with LLVM's numbering (0–15 floating point, 32–41 integer).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Predicate(pub u8);

impl Predicate {
    pub const FCMP_FALSE: Predicate = Predicate(0);
    pub const FCMP_OEQ: Predicate = Predicate(1);
    pub const FCMP_OGT: Predicate = Predicate(2);
    pub const FCMP_OGE: Predicate = Predicate(3);
    pub const FCMP_OLT: Predicate = Predicate(4);
    pub const FCMP_OLE: Predicate = Predicate(5);
    pub const FCMP_ONE: Predicate = Predicate(6);
    pub const FCMP_ORD: Predicate = Predicate(7);
    pub const FCMP_UNO: Predicate = Predicate(8);
    pub const FCMP_UEQ: Predicate = Predicate(9);
    pub const FCMP_UGT: Predicate = Predicate(10);
    pub const FCMP_UGE: Predicate = Predicate(11);
    pub const FCMP_ULT: Predicate = Predicate(12);
    pub const FCMP_ULE: Predicate = Predicate(13);
    pub const FCMP_UNE: Predicate = Predicate(14);
    pub const FCMP_TRUE: Predicate = Predicate(15);
    pub const ICMP_EQ: Predicate = Predicate(32);
    pub const ICMP_NE: Predicate = Predicate(33);
    pub const ICMP_UGT: Predicate = Predicate(34);
    pub const ICMP_UGE: Predicate = Predicate(35);
    pub const ICMP_ULT: Predicate = Predicate(36);
    pub const ICMP_ULE: Predicate = Predicate(37);
    pub const ICMP_SGT: Predicate = Predicate(38);
    pub const ICMP_SGE: Predicate = Predicate(39);
    pub const ICMP_SLT: Predicate = Predicate(40);
    pub const ICMP_SLE: Predicate = Predicate(41);

    pub fn from_code(code: u64) -> Option<Predicate> {
        match code {
            0..=15 | 32..=41 => Some(Predicate(code as u8)),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        self.0 <= 15
    }

    /// The predicate keyword as LLVM assembly spells it (`oeq`, `slt`, ...).
    pub fn name(self) -> &'static str {
        const F: [&str; 16] = [
            "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
            "ult", "ule", "une", "true",
        ];
        const I: [&str; 10] = [
            "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
        ];
        if self.0 <= 15 {
            F[self.0 as usize]
        } else {
            I.get((self.0 as usize).wrapping_sub(32))
                .copied()
                .unwrap_or("?")
        }
    }
}

/// `atomicrmw` operations, numbered as in the bitcode.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
}

impl RmwOp {
    pub fn from_code(code: u64) -> Option<RmwOp> {
        use RmwOp::*;
        Some(match code {
            0 => Xchg,
            1 => Add,
            2 => Sub,
            3 => And,
            4 => Nand,
            5 => Or,
            6 => Xor,
            7 => Max,
            8 => Min,
            9 => UMax,
            10 => UMin,
            _ => return None,
        })
    }

    pub fn code(self) -> u64 {
        self as u64
    }

    pub fn name(self) -> &'static str {
        use RmwOp::*;
        match self {
            Xchg => "xchg",
            Add => "add",
            Sub => "sub",
            And => "and",
            Nand => "nand",
            Or => "or",
            Xor => "xor",
            Max => "max",
            Min => "min",
            UMax => "umax",
            UMin => "umin",
        }
    }
}

/// Memory ordering (bitcode numbering: 0 not atomic, 1 unordered, 2 monotonic, 3 acquire,
/// 4 release, 5 acq_rel, 6 seq_cst).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ordering(pub u8);

impl Ordering {
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "notatomic",
            1 => "unordered",
            2 => "monotonic",
            3 => "acquire",
            4 => "release",
            5 => "acq_rel",
            6 => "seq_cst",
            _ => "?",
        }
    }
}

/// Synchronization scope: 0 = singlethread, 1 = system (cross-thread).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SyncScope(pub u8);

/// An instruction: what it does and the type of its result (`void` when it produces none).
#[derive(Clone, Debug)]
pub struct InstData {
    pub kind: InstKind,
    pub ty: TypeId,
}

/// Instruction payloads. Variable-length operand lists live in the body's `pool` (see
/// [`crate::Body`]); `PoolRange`s here index it.
#[derive(Clone, Debug)]
pub enum InstKind {
    Ret {
        value: Option<Value>,
    },
    Br {
        dest: BlockId,
    },
    CondBr {
        cond: Value,
        if_true: BlockId,
        if_false: BlockId,
    },
    /// `cases` holds pairs `(case value as Value::raw, block index)` in the pool.
    Switch {
        cond: Value,
        default: BlockId,
        cases: PoolRange,
    },
    Unreachable,
    Binary {
        op: BinOp,
        lhs: Value,
        rhs: Value,
        /// nuw/nsw, exact or fast-math bits (see [`BinOp::flag_kind`]).
        flags: u8,
    },
    Cast {
        op: CastOp,
        value: Value,
    },
    Cmp {
        pred: Predicate,
        lhs: Value,
        rhs: Value,
        /// Fast-math flags of a floating-point comparison.
        flags: u8,
    },
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
    },
    ExtractElement {
        vector: Value,
        index: Value,
    },
    InsertElement {
        vector: Value,
        element: Value,
        index: Value,
    },
    ShuffleVector {
        v1: Value,
        v2: Value,
        mask: Value,
    },
    /// `indices` are raw u32 indices in the pool.
    ExtractValue {
        aggregate: Value,
        indices: PoolRange,
    },
    InsertValue {
        aggregate: Value,
        element: Value,
        indices: PoolRange,
    },
    /// `incoming` holds pairs `(value, block index)` in the pool, in record order.
    Phi {
        incoming: PoolRange,
    },
    Alloca {
        allocated: TypeId,
        size: Value,
        /// The alignment field as stored: log2(align) + 1 in bits 0–4, plus the inalloca (bit 5) and
        /// explicit-type (bit 6) flags.
        align_field: u32,
    },
    Load {
        ptr: Value,
        /// log2(align) + 1; 0 = unspecified.
        align: u8,
        volatile: bool,
        atomic: Option<(Ordering, SyncScope)>,
    },
    Store {
        ptr: Value,
        value: Value,
        align: u8,
        volatile: bool,
        atomic: Option<(Ordering, SyncScope)>,
    },
    /// `operands` = base pointer then indices, in the pool.
    Gep {
        inbounds: bool,
        source_ty: TypeId,
        operands: PoolRange,
    },
    Call {
        callee: Value,
        fn_ty: TypeId,
        /// The call site's attribute list, if any.
        attrs: Option<AttrListId>,
        /// The CALL record's cc field: calling convention << 1 | tail | musttail << 14 (bit 15,
        /// explicit type, is implied).
        cc_flags: u32,
        args: PoolRange,
    },
    AtomicRmw {
        op: RmwOp,
        ptr: Value,
        value: Value,
        volatile: bool,
        ordering: Ordering,
        scope: SyncScope,
    },
    CmpXchg {
        ptr: Value,
        cmp: Value,
        new: Value,
        volatile: bool,
        success: Ordering,
        scope: SyncScope,
        failure: Ordering,
        weak: bool,
    },
    Fence {
        ordering: Ordering,
        scope: SyncScope,
    },
    /// `va_arg` (never in DXIL, but part of 3.7).
    VaArg {
        list_ty: TypeId,
        list: Value,
    },
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Ret { .. }
                | InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Unreachable
        )
    }
}

/// A debug location attached to an instruction (`DEBUG_LOC`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct DebugLoc {
    pub line: u64,
    pub col: u64,
    /// Metadata id + 1 of the scope, 0 for none (as stored).
    pub scope: u64,
    /// Metadata id + 1 of the inlined-at location, 0 for none.
    pub inlined_at: u64,
}

impl InstKind {
    /// Calls `f` on every value operand (block indices and raw indices are not values).
    /// `pool` is the owning body's operand pool.
    pub fn for_each_value(&self, pool: &[u32], mut f: impl FnMut(Value)) {
        self.visit(pool, &mut |v| f(v));
    }

    fn visit(&self, pool: &[u32], f: &mut dyn FnMut(Value)) {
        use InstKind::*;
        let list = |r: &PoolRange, f: &mut dyn FnMut(Value)| {
            for &v in r.get(pool) {
                f(Value(v));
            }
        };
        let pairs = |r: &PoolRange, f: &mut dyn FnMut(Value)| {
            for p in r.get(pool).chunks_exact(2) {
                f(Value(p[0]));
            }
        };
        match self {
            Ret { value } => {
                if let Some(v) = value {
                    f(*v)
                }
            }
            Br { .. } | Unreachable | Fence { .. } => {}
            CondBr { cond, .. } => f(*cond),
            Switch { cond, cases, .. } => {
                f(*cond);
                pairs(cases, f);
            }
            Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs);
            }
            Cast { value, .. } => f(*value),
            Select {
                cond,
                if_true,
                if_false,
            } => {
                f(*cond);
                f(*if_true);
                f(*if_false);
            }
            ExtractElement { vector, index } => {
                f(*vector);
                f(*index);
            }
            InsertElement {
                vector,
                element,
                index,
            } => {
                f(*vector);
                f(*element);
                f(*index);
            }
            ShuffleVector { v1, v2, mask } => {
                f(*v1);
                f(*v2);
                f(*mask);
            }
            ExtractValue { aggregate, .. } => f(*aggregate),
            InsertValue {
                aggregate, element, ..
            } => {
                f(*aggregate);
                f(*element);
            }
            Phi { incoming } => pairs(incoming, f),
            Alloca { size, .. } => f(*size),
            Load { ptr, .. } => f(*ptr),
            Store { ptr, value, .. } => {
                f(*ptr);
                f(*value);
            }
            Gep { operands, .. } => list(operands, f),
            Call { callee, args, .. } => {
                f(*callee);
                list(args, f);
            }
            AtomicRmw { ptr, value, .. } => {
                f(*ptr);
                f(*value);
            }
            CmpXchg { ptr, cmp, new, .. } => {
                f(*ptr);
                f(*cmp);
                f(*new);
            }
            VaArg { list, .. } => f(*list),
        }
    }

    /// Rewrites every value operand in place (used by readers to resolve forward references).
    pub fn map_values(&mut self, pool: &mut [u32], f: &mut dyn FnMut(Value) -> Value) {
        use InstKind::*;
        fn list(r: PoolRange, pool: &mut [u32], step: usize, f: &mut dyn FnMut(Value) -> Value) {
            let s = r.start as usize;
            if let Some(slice) = pool.get_mut(s..s + r.len as usize) {
                for v in slice.iter_mut().step_by(step) {
                    *v = f(Value(*v)).0;
                }
            }
        }
        match self {
            Ret { value } => {
                if let Some(v) = value {
                    *v = f(*v)
                }
            }
            Br { .. } | Unreachable | Fence { .. } => {}
            CondBr { cond, .. } => *cond = f(*cond),
            Switch { cond, cases, .. } => {
                *cond = f(*cond);
                list(*cases, pool, 2, f);
            }
            Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
                *lhs = f(*lhs);
                *rhs = f(*rhs);
            }
            Cast { value, .. } => *value = f(*value),
            Select {
                cond,
                if_true,
                if_false,
            } => {
                *cond = f(*cond);
                *if_true = f(*if_true);
                *if_false = f(*if_false);
            }
            ExtractElement { vector, index } => {
                *vector = f(*vector);
                *index = f(*index);
            }
            InsertElement {
                vector,
                element,
                index,
            } => {
                *vector = f(*vector);
                *element = f(*element);
                *index = f(*index);
            }
            ShuffleVector { v1, v2, mask } => {
                *v1 = f(*v1);
                *v2 = f(*v2);
                *mask = f(*mask);
            }
            ExtractValue { aggregate, .. } => *aggregate = f(*aggregate),
            InsertValue {
                aggregate, element, ..
            } => {
                *aggregate = f(*aggregate);
                *element = f(*element);
            }
            Phi { incoming } => list(*incoming, pool, 2, f),
            Alloca { size, .. } => *size = f(*size),
            Load { ptr, .. } => *ptr = f(*ptr),
            Store { ptr, value, .. } => {
                *ptr = f(*ptr);
                *value = f(*value);
            }
            Gep { operands, .. } => list(*operands, pool, 1, f),
            Call { callee, args, .. } => {
                *callee = f(*callee);
                list(*args, pool, 1, f);
            }
            AtomicRmw { ptr, value, .. } => {
                *ptr = f(*ptr);
                *value = f(*value);
            }
            CmpXchg { ptr, cmp, new, .. } => {
                *ptr = f(*ptr);
                *cmp = f(*cmp);
                *new = f(*new);
            }
            VaArg { list: l, .. } => *l = f(*l),
        }
    }

    /// Calls `f` on every block this instruction names (branch targets, phi predecessors).
    pub fn for_each_block(&self, pool: &[u32], mut f: impl FnMut(BlockId)) {
        use InstKind::*;
        match self {
            Br { dest } => f(*dest),
            CondBr {
                if_true, if_false, ..
            } => {
                f(*if_true);
                f(*if_false);
            }
            Switch { default, cases, .. } => {
                f(*default);
                for p in cases.get(pool).chunks_exact(2) {
                    f(BlockId(p[1]));
                }
            }
            Phi { incoming } => {
                for p in incoming.get(pool).chunks_exact(2) {
                    f(BlockId(p[1]));
                }
            }
            _ => {}
        }
    }
}
