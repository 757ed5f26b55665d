//! Instructions: one per line, with their operands checked against the types as LLVM's own
//! parser checks them, and attachments.

use super::*;

impl<'a> Parser<'a> {
    /// Parses one instruction; returns whether it was a terminator.
    pub(super) fn instruction(&mut self) -> Result<bool> {
        let at = self.tok.start;
        let result = match self.tok.tok {
            Tok::LocalVar | Tok::LocalId(_) => {
                let r = self.local_key()?;
                self.expect(Tok::Equal, "'=' after the result name")?;
                Some(r)
            }
            _ => None,
        };
        if self.tok.tok != Tok::Word {
            return Err(self.expected("an instruction opcode"));
        }
        let op_at = self.tok.start;
        let (kind, ty, ate_comma) = self.instruction_body(op_at)?;
        let terminator = kind.is_terminator();
        let idx = InstId(self.fs.body.insts.len() as u32);
        if idx.0 >= dxil_module::value::MAX_VALUE_INDEX {
            return Err(self.err_at(at, "too many instructions in one function"));
        }
        self.fs.body.insts.push(InstData { kind, ty });
        let void = self.is_void(ty);
        match result {
            Some((_, rat)) if void => {
                return Err(self.err_at(rat, "instructions returning void cannot have a name"));
            }
            Some((Key::Id(n), rat)) => {
                let want = self.fs.slots.len() as u32;
                if n != want {
                    return Err(self.err_at(
                        rat,
                        format!("instruction expected to be numbered '%{want}'"),
                    ));
                }
                self.define_local(Key::Id(n), Value::inst(idx), ty, rat)?;
            }
            Some((key, rat)) => self.define_local(key, Value::inst(idx), ty, rat)?,
            None if !void => {
                let n = self.fs.slots.len() as u32;
                self.define_local(Key::Id(n), Value::inst(idx), ty, at)?;
            }
            None => {}
        }
        self.attachments(idx, ate_comma)?;
        Ok(terminator)
    }

    /// `, !kind !N` pairs after an instruction. `ate_comma`: the instruction's own parser
    /// already consumed the comma before the first one.
    pub(super) fn attachments(&mut self, inst: InstId, mut ate_comma: bool) -> Result<()> {
        loop {
            if !ate_comma && !self.eat(Tok::Comma)? {
                return Ok(());
            }
            ate_comma = false;
            if self.tok.tok != Tok::MetadataVar {
                return Err(self.expected("a metadata attachment ('!kind !N')"));
            }
            let kt = self.bump()?;
            let kind = self.md_kind(&kt);
            let node = self.md_node_ref()?;
            self.fs
                .body
                .attachments
                .push(Attachment { inst, kind, node });
        }
    }

    /// After a comma inside an instruction: whether what follows is an attachment (then the
    /// comma belongs to it).
    pub(super) fn at_attachment(&self) -> bool {
        self.tok.tok == Tok::MetadataVar
    }

    pub(super) fn push_pool(&mut self, vals: &[u32]) -> PoolRange {
        PoolRange::push(&mut self.fs.body.pool, vals)
    }

    pub(super) fn fast_math_flags(&mut self) -> Result<u8> {
        let mut f = 0u8;
        while self.tok.tok == Tok::Word {
            f |= match self.text() {
                "fast" => {
                    fast_math::UNSAFE_ALGEBRA
                        | fast_math::NO_NANS
                        | fast_math::NO_INFS
                        | fast_math::NO_SIGNED_ZEROS
                        | fast_math::ALLOW_RECIPROCAL
                }
                "nnan" => fast_math::NO_NANS,
                "ninf" => fast_math::NO_INFS,
                "nsz" => fast_math::NO_SIGNED_ZEROS,
                "arcp" => fast_math::ALLOW_RECIPROCAL,
                _ => break,
            };
            self.bump()?;
        }
        Ok(f)
    }

    /// `[singlethread] ordering`.
    pub(super) fn atomic_ordering(&mut self) -> Result<(Ordering, SyncScope)> {
        let scope = if self.eat_word("singlethread")? {
            SyncScope(0)
        } else {
            SyncScope(1)
        };
        let o = if self.tok.tok == Tok::Word {
            ordering(self.text())
        } else {
            None
        };
        let o = o.ok_or_else(|| self.expected("an atomic ordering"))?;
        self.bump()?;
        Ok((o, scope))
    }

    /// `, align N` (optional); returns (field, ate a comma before an attachment).
    pub(super) fn opt_comma_align(&mut self) -> Result<(u8, bool)> {
        if !self.eat(Tok::Comma)? {
            return Ok((0, false));
        }
        if self.at_attachment() {
            return Ok((0, true));
        }
        self.expect_word("align")?;
        Ok((self.alignment_value()? as u8, false))
    }

    /// Parses the instruction after its result name: (kind, result type, ate a comma).
    pub(super) fn instruction_body(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        let w = self.text();
        let void = self.prim(VOID);
        if let Some(op) = bin_op(w) {
            return self.binary(op, at);
        }
        if let Some(op) = cast_op(w) {
            return self.cast(op, at);
        }
        match w {
            "icmp" | "fcmp" => self.compare(w == "fcmp", at),
            "select" => self.select(at),
            "extractelement" => self.extract_element(at),
            "insertelement" => self.insert_element(at),
            "shufflevector" => self.shuffle_vector(at),
            "extractvalue" => self.extract_value(at),
            "insertvalue" => self.insert_value(at),
            "phi" => self.phi(),
            "alloca" => self.alloca(at),
            "load" => self.load(at),
            "store" => self.store(at, void),
            "getelementptr" => self.gep(at),
            "call" | "tail" | "musttail" => self.call(at),
            "atomicrmw" => self.atomic_rmw(at),
            "cmpxchg" => self.cmpxchg(at),
            "fence" => {
                self.bump()?;
                let (ordering, scope) = self.atomic_ordering()?;
                Ok((InstKind::Fence { ordering, scope }, void, false))
            }
            "va_arg" => {
                self.bump()?;
                let (list, list_ty) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let ty = self.parse_type(false)?;
                Ok((InstKind::VaArg { list_ty, list }, ty, false))
            }
            "ret" => self.ret(void),
            "br" => self.br(void),
            "switch" => self.switch(void),
            "unreachable" => {
                self.bump()?;
                Ok((InstKind::Unreachable, void, false))
            }
            "invoke" | "resume" | "indirectbr" | "landingpad" | "cleanupret" | "catchret"
            | "catchswitch" | "catchpad" | "cleanuppad" => {
                Err(self.err(format!("'{w}' is not supported")))
            }
            _ => Err(self.expected("an instruction opcode")),
        }
    }

    /// A binary operator with its flags (`add nuw nsw`, `fadd fast`, `udiv exact`).
    pub(super) fn binary(&mut self, op: BinOp, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let mut flags = 0u8;
        match op.flag_kind() {
            BinFlagKind::Overflow => loop {
                if self.eat_word("nuw")? {
                    flags |= 1;
                } else if self.eat_word("nsw")? {
                    flags |= 2;
                } else {
                    break;
                }
            },
            BinFlagKind::Exact => {
                if self.eat_word("exact")? {
                    flags |= 1;
                }
            }
            BinFlagKind::FastMath => flags = self.fast_math_flags()?,
            BinFlagKind::None => {}
        }
        let (lhs, ty) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let rhs = self.value(ty)?;
        self.check_binary(op, ty, ty, at)?;
        Ok((
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags,
            },
            ty,
            false,
        ))
    }

    /// A cast: `OP TYPE VALUE to TYPE`.
    pub(super) fn cast(&mut self, op: CastOp, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (value, from) = self.typed_value()?;
        self.expect_word("to")?;
        let to = self.parse_type(false)?;
        if !self.cast_ok(op, from, to) {
            return Err(self.err_at(
                at,
                format!(
                    "invalid cast opcode for cast from '{}' to '{}'",
                    self.type_text(from),
                    self.type_text(to)
                ),
            ));
        }
        Ok((InstKind::Cast { op, value }, to, false))
    }

    /// `icmp`/`fcmp` (with fast-math flags on `fcmp`) and the predicate.
    pub(super) fn compare(&mut self, float: bool, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let flags = if float { self.fast_math_flags()? } else { 0 };
        let pred = if self.tok.tok == Tok::Word {
            predicate(self.text(), float)
        } else {
            None
        };
        let pred = pred.ok_or_else(|| self.expected("a comparison predicate"))?;
        self.bump()?;
        let (lhs, ty) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let rhs = self.value(ty)?;
        self.check_cmp(float, ty, ty, at)?;
        let rt = self.bool_like(ty);
        Ok((
            InstKind::Cmp {
                pred,
                lhs,
                rhs,
                flags,
            },
            rt,
            false,
        ))
    }

    /// `select`.
    pub(super) fn select(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (cond, ct) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (if_true, tt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (if_false, ft) = self.typed_value()?;
        self.check_select(ct, tt, ft, at)?;
        Ok((
            InstKind::Select {
                cond,
                if_true,
                if_false,
            },
            tt,
            false,
        ))
    }

    /// `extractelement`.
    pub(super) fn extract_element(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (vector, vt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (index, it) = self.typed_value()?;
        let et = self.check_extractelement(vt, it, at)?;
        Ok((InstKind::ExtractElement { vector, index }, et, false))
    }

    /// `insertelement`.
    pub(super) fn insert_element(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (vector, vt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (element, et) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (index, it) = self.typed_value()?;
        self.check_insertelement(vt, et, it, at)?;
        Ok((
            InstKind::InsertElement {
                vector,
                element,
                index,
            },
            vt,
            false,
        ))
    }

    /// `shufflevector`.
    pub(super) fn shuffle_vector(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (v1, t1) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (v2, t2) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (mask, mt) = self.typed_value()?;
        let rt = self.check_shuffle(t1, t2, mt, at)?;
        Ok((InstKind::ShuffleVector { v1, v2, mask }, rt, false))
    }

    /// `extractvalue`.
    pub(super) fn extract_value(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (aggregate, aty) = self.typed_value()?;
        let (indices, t, ate) = self.aggregate_indices(aty, at)?;
        Ok((InstKind::ExtractValue { aggregate, indices }, t, ate))
    }

    /// `insertvalue`.
    pub(super) fn insert_value(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let (aggregate, aty) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let eat = self.tok.start;
        let (element, et) = self.typed_value()?;
        let (indices, t, ate) = self.aggregate_indices(aty, at)?;
        if t != et {
            return Err(self.err_at(
                eat,
                format!(
                    "inserted value has type '{}', the indexed field '{}'",
                    self.type_text(et),
                    self.type_text(t)
                ),
            ));
        }
        Ok((
            InstKind::InsertValue {
                aggregate,
                element,
                indices,
            },
            aty,
            ate,
        ))
    }

    /// `atomicrmw`: the operation, pointer, value and ordering.
    pub(super) fn atomic_rmw(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let volatile = self.eat_word("volatile")?;
        let op = if self.tok.tok == Tok::Word {
            rmw_op(self.text())
        } else {
            None
        };
        let op = op.ok_or_else(|| self.expected("an atomicrmw operation"))?;
        self.bump()?;
        let (ptr, pt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (value, vt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(vt) || self.m.types.int_width(vt).is_none() {
            return Err(self.err_at(at, "atomicrmw needs an integer and a pointer to it"));
        }
        let (ordering, scope) = self.atomic_ordering()?;
        Ok((
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
            },
            vt,
            false,
        ))
    }

    /// `cmpxchg`: its result is `{ T, i1 }`.
    pub(super) fn cmpxchg(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let weak = self.eat_word("weak")?;
        let volatile = self.eat_word("volatile")?;
        let (ptr, pt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (cmp, ct) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (new, nt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(ct) || ct != nt {
            return Err(self.err_at(at, "cmpxchg operands must match the pointee type"));
        }
        let (success, scope) = self.atomic_ordering()?;
        let failure = match self.tok.tok {
            Tok::Word => ordering(self.text()),
            _ => None,
        };
        let failure = failure.ok_or_else(|| self.expected("a failure ordering"))?;
        self.bump()?;
        let i1 = self.int_type(1);
        let rt = self.types.intern(
            &mut self.m,
            TypeData::Struct {
                name: None,
                packed: false,
                opaque: false,
                elems: vec![ct, i1],
            },
        );
        Ok((
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                success,
                scope,
                failure,
                weak,
            },
            rt,
            false,
        ))
    }

    /// `ret void` or `ret TYPE VALUE`, checked against the function's result type.
    pub(super) fn ret(&mut self, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let rat = self.tok.start;
        let ret = self.fs.ret;
        if self.is_word("void") {
            self.bump()?;
            if !self.is_void(ret) {
                return Err(self.err_at(
                    rat,
                    format!(
                        "value doesn't match function result type '{}'",
                        self.type_text(ret)
                    ),
                ));
            }
            return Ok((InstKind::Ret { value: None }, void, false));
        }
        let ty = self.parse_type(false)?;
        if ty != ret {
            return Err(self.err_at(
                rat,
                format!(
                    "value doesn't match function result type '{}'",
                    self.type_text(ret)
                ),
            ));
        }
        let v = self.value(ty)?;
        Ok((InstKind::Ret { value: Some(v) }, void, false))
    }

    /// `br label %b` or `br i1 %c, label %t, label %f`.
    pub(super) fn br(&mut self, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        if self.is_word("label") {
            let dest = self.label_operand()?;
            return Ok((InstKind::Br { dest }, void, false));
        }
        let cat = self.tok.start;
        let (cond, ct) = self.typed_value()?;
        if self.m.types.int_width(ct) != Some(1) {
            return Err(self.err_at(cat, "branch condition must have 'i1' type"));
        }
        self.expect(Tok::Comma, "','")?;
        let if_true = self.label_operand()?;
        self.expect(Tok::Comma, "','")?;
        let if_false = self.label_operand()?;
        Ok((
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            },
            void,
            false,
        ))
    }

    /// `, i, j, ...` of extractvalue/insertvalue: the pooled indices and the indexed type.
    pub(super) fn aggregate_indices(
        &mut self,
        aty: TypeId,
        at: u32,
    ) -> Result<(PoolRange, TypeId, bool)> {
        let start = self.fs.body.pool.len() as u32;
        let mut t = aty;
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            let iat = self.tok.start;
            let idx = self.u32_literal("an aggregate index")?;
            t = match self.m.types.data(t) {
                TypeData::Struct {
                    elems,
                    opaque: false,
                    ..
                } => match elems.get(idx as usize) {
                    Some(&e) => e,
                    None => return Err(self.err_at(iat, "struct index out of range")),
                },
                TypeData::Array { len, elem } if u64::from(idx) < *len => *elem,
                TypeData::Array { .. } => {
                    return Err(self.err_at(iat, "array index out of range"));
                }
                _ => return Err(self.err_at(iat, "invalid indices for an aggregate value")),
            };
            self.fs.body.pool.push(idx);
        }
        let n = self.fs.body.pool.len() as u32 - start;
        if n == 0 {
            return Err(self.err_at(at, "expected at least one aggregate index"));
        }
        Ok((PoolRange { start, len: n }, t, ate))
    }

    pub(super) fn phi(&mut self) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let tat = self.tok.start;
        let ty = self.parse_type(false)?;
        if !self.types.is_first_class_or_aggregate(&self.m, ty) {
            return Err(self.err_at(tat, "phi node must have first class type"));
        }
        let mut pairs = std::mem::take(&mut self.fs.buf_vals);
        pairs.clear();
        let mut ate = false;
        loop {
            self.expect(Tok::LSquare, "'[' of a phi incoming pair")?;
            let v = self.value(ty)?;
            self.expect(Tok::Comma, "','")?;
            let b = self.block_ref()?;
            self.expect(Tok::RSquare, "']'")?;
            pairs.push(v.0);
            pairs.push(b.0);
            if !self.eat(Tok::Comma)? {
                break;
            }
            if self.at_attachment() {
                ate = true;
                break;
            }
        }
        let incoming = self.push_pool(&pairs);
        self.fs.buf_vals = pairs;
        Ok((InstKind::Phi { incoming }, ty, ate))
    }

    pub(super) fn alloca(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let inalloca = self.eat_word("inalloca")?;
        let tat = self.tok.start;
        let allocated = self.parse_type(false)?;
        if !self.types.is_first_class_or_aggregate(&self.m, allocated) {
            return Err(self.err_at(tat, "invalid type for alloca"));
        }
        let mut size = None;
        let mut align = 0u32;
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            if self.eat_word("align")? {
                align = self.alignment_value()?;
                continue;
            }
            if size.is_some() || align != 0 {
                return Err(self.expected("'align' or a metadata attachment"));
            }
            let sat = self.tok.start;
            let (v, t) = self.typed_value()?;
            if self.m.types.int_width(t).is_none() {
                return Err(self.err_at(sat, "element count must have integer type"));
            }
            size = Some(v);
        }
        let size = match size {
            Some(v) => v,
            None => {
                let i32t = self.int_type(32);
                Value::constant(self.int_const(i32t, 1))
            }
        };
        if align > 30 {
            return Err(self.err_at(at, "alloca alignment too large"));
        }
        // LLVM 3.7 always sets the explicit-type bit.
        let align_field = align | 1 << 6 | u32::from(inalloca) << 5;
        let ty = self.types.pointer(&mut self.m, allocated, 0);
        Ok((
            InstKind::Alloca {
                allocated,
                size,
                align_field,
            },
            ty,
            ate,
        ))
    }

    pub(super) fn load(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let atomic = self.eat_word("atomic")?;
        let volatile = self.eat_word("volatile")?;
        let ty = self.parse_type(false)?;
        self.expect(Tok::Comma, "','")?;
        let (ptr, pt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(ty) {
            return Err(self.err_at(
                at,
                "explicit pointee type doesn't match operand's pointee type",
            ));
        }
        let atomic = if atomic {
            Some(self.atomic_ordering()?)
        } else {
            None
        };
        let (align, ate) = self.opt_comma_align()?;
        Ok((
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            },
            ty,
            ate,
        ))
    }

    pub(super) fn store(&mut self, at: u32, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let atomic = self.eat_word("atomic")?;
        let volatile = self.eat_word("volatile")?;
        let (value, vt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (ptr, pt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(vt) {
            return Err(self.err_at(at, "stored value and pointer type do not match"));
        }
        let atomic = if atomic {
            Some(self.atomic_ordering()?)
        } else {
            None
        };
        let (align, ate) = self.opt_comma_align()?;
        Ok((
            InstKind::Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            },
            void,
            ate,
        ))
    }

    pub(super) fn gep(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let inbounds = self.eat_word("inbounds")?;
        let source_ty = self.parse_type(false)?;
        let mut ops = std::mem::take(&mut self.fs.buf_values);
        ops.clear();
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            let (v, _) = self.typed_value()?;
            ops.push(v);
        }
        let ty = self.gep_type(source_ty, &ops, at)?;
        let start = self.fs.body.pool.len() as u32;
        self.fs.body.pool.extend(ops.iter().map(|v| v.0));
        let operands = PoolRange {
            start,
            len: ops.len() as u32,
        };
        self.fs.buf_values = ops;
        Ok((
            InstKind::Gep {
                inbounds,
                source_ty,
                operands,
            },
            ty,
            ate,
        ))
    }

    pub(super) fn switch(&mut self, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let cat = self.tok.start;
        let (cond, ct) = self.typed_value()?;
        if self.m.types.int_width(ct).is_none() {
            return Err(self.err_at(cat, "switch condition must have integer type"));
        }
        self.expect(Tok::Comma, "','")?;
        let default = self.label_operand()?;
        self.expect(Tok::LSquare, "'[' before the switch cases")?;
        let mut pairs: Vec<u32> = Vec::new();
        while !self.eat(Tok::RSquare)? {
            let vat = self.tok.start;
            let t = self.parse_type(false)?;
            if t != ct {
                return Err(self.err_at(vat, "case value has the wrong type"));
            }
            let v = self.constant(t)?;
            if pairs.chunks_exact(2).any(|p| p[0] == Value::constant(v).0) {
                return Err(self.err_at(vat, "duplicate case value"));
            }
            self.expect(Tok::Comma, "','")?;
            let b = self.label_operand()?;
            pairs.push(Value::constant(v).0);
            pairs.push(b.0);
        }
        let cases = self.push_pool(&pairs);
        Ok((
            InstKind::Switch {
                cond,
                default,
                cases,
            },
            void,
            false,
        ))
    }

    /// Skips the tokens of a callee that is a constant expression (`bitcast (...)`) or a name.
    pub(super) fn skip_callee(&mut self) -> Result<()> {
        if self.tok.tok == Tok::Word {
            while self.tok.tok == Tok::Word {
                self.bump()?;
            }
            if self.tok.tok != Tok::LParen {
                return Err(self.expected("'(' of a constant expression"));
            }
            let mut depth = 0u32;
            loop {
                match self.bump()?.tok {
                    Tok::LParen => depth += 1,
                    Tok::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    Tok::Eof => return Err(self.expected("')'")),
                    _ => {}
                }
            }
        }
        self.bump()?;
        Ok(())
    }

    pub(super) fn call(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        let mut cc_flags = 0u32;
        if self.eat_word("tail")? {
            cc_flags |= 1;
        } else if self.eat_word("musttail")? {
            cc_flags |= 1 << 14;
        }
        self.expect_word("call")?;
        let cc = self.calling_conv()?;
        cc_flags |= cc << 1;
        let ret_attrs = self.param_attrs()?;
        let tat = self.tok.start;
        let ty = self.parse_type(true)?;
        let explicit = match self.m.types.data(ty) {
            TypeData::Function { .. } => Some(ty),
            _ => None,
        };
        // The callee's type may depend on the arguments: remember where it is and read the
        // arguments first.
        let callee_tok = self.tok;
        let callee_lx = self.lx.pos();
        self.skip_callee()?;
        self.expect(Tok::LParen, "'(' before the call arguments")?;
        let mut args = std::mem::take(&mut self.fs.buf_vals);
        args.clear();
        let mut arg_types = std::mem::take(&mut self.fs.buf_types);
        arg_types.clear();
        let mut arg_attrs: Vec<(u32, Vec<dxil_module::Attribute>)> = Vec::new();
        let md_ty = self.types.metadata;
        if !self.eat(Tok::RParen)? {
            loop {
                let aat = self.tok.start;
                let t = self.parse_type(false)?;
                let a = self.param_attrs()?;
                if !a.is_empty() {
                    arg_attrs.push((args.len() as u32 + 1, a));
                }
                let v = if t == md_ty {
                    self.metadata_operand_value()?
                } else {
                    self.value(t)?
                };
                if let Some(ft) = explicit
                    && let Some((_, params, vararg)) = self.m.types.function_signature(ft)
                {
                    match params.get(args.len()) {
                        Some(&p) if p != t => {
                            return Err(self.err_at(
                                aat,
                                format!(
                                    "argument has type '{}', the callee expects '{}'",
                                    self.type_text(t),
                                    self.type_text(p)
                                ),
                            ));
                        }
                        None if !vararg => {
                            return Err(self.err_at(aat, "too many arguments for the callee"));
                        }
                        _ => {}
                    }
                }
                args.push(v.0);
                arg_types.push(t);
                if self.eat(Tok::RParen)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or ')' in the argument list")?;
            }
        }
        let fn_ty = match explicit {
            Some(ft) => {
                let n = self.m.types.function_signature(ft).map_or(0, |s| s.1.len());
                if args.len() < n {
                    return Err(self.err_at(at, "too few arguments for the callee"));
                }
                ft
            }
            None => {
                if matches!(self.m.types.data(ty), TypeData::Label | TypeData::Metadata) {
                    return Err(self.err_at(tat, "invalid call result type"));
                }
                // Usually the callee has been seen with this very type: no new type to build.
                match self.known_callee_type(&callee_tok) {
                    Some(k)
                        if self.m.types.function_signature(k)
                            == Some((ty, arg_types.as_slice(), false)) =>
                    {
                        k
                    }
                    _ => self.types.intern(
                        &mut self.m,
                        TypeData::Function {
                            vararg: false,
                            ret: ty,
                            params: arg_types.clone(),
                        },
                    ),
                }
            }
        };
        let mut fn_attrs = Vec::new();
        let mut group_refs = Vec::new();
        loop {
            match self.tok.tok {
                Tok::AttrGroupId(n) => {
                    group_refs.push((n, self.tok.start));
                    self.bump()?;
                }
                Tok::Word | Tok::Str => {
                    if !self.fn_attr(&mut fn_attrs)? {
                        break;
                    }
                }
                _ => break,
            }
        }
        // Now the callee, with its type known.
        let resume_tok = self.tok;
        let resume_lx = self.lx.pos();
        self.tok = callee_tok;
        self.lx.set_pos(callee_lx);
        let ptr_ty = self.types.pointer(&mut self.m, fn_ty, 0);
        let callee = self.value(ptr_ty)?;
        self.tok = resume_tok;
        self.lx.set_pos(resume_lx);
        let mut slots = Vec::new();
        if !ret_attrs.is_empty() {
            slots.push((0, ret_attrs));
        }
        slots.extend(arg_attrs);
        let inst = InstId(self.fs.body.insts.len() as u32);
        let attrs = self.attrs_pending(slots, fn_attrs, group_refs, Some(inst));
        let args_range = self.push_pool(&args);
        self.fs.buf_vals = args;
        self.fs.buf_types = arg_types;
        let args = args_range;
        let ret = self
            .m
            .types
            .function_signature(fn_ty)
            .map_or(ty, |(r, _, _)| r);
        Ok((
            InstKind::Call {
                callee,
                fn_ty,
                attrs,
                cc_flags,
                args,
            },
            ret,
            false,
        ))
    }

    /// The function type of a callee named by a global already defined or used.
    pub(super) fn known_callee_type(&mut self, t: &super::super::lexer::Token) -> Option<TypeId> {
        let key = match t.tok {
            Tok::GlobalVar => Key::Name(self.name_of(t)),
            Tok::GlobalId(n) => Key::Id(n),
            _ => return None,
        };
        let found = match &key {
            Key::Name(n) => self.globals.get(n).copied(),
            Key::Id(n) => self.numbered_globals.get(*n as usize).copied(),
        };
        let ptr = match found {
            Some(v) => self.value_type(v)?,
            None => self.gfwd.get(*self.gfwd_index.get(&key)? as usize)?.ty,
        };
        self.m.types.pointee(ptr)
    }

    /// The operand of a `metadata` argument: `!N`, `!"..."`, `!{...}` or a wrapped value
    /// (`metadata float %x`).
    pub(super) fn metadata_operand_value(&mut self) -> Result<Value> {
        if matches!(
            self.tok.tok,
            Tok::MetadataId(_) | Tok::MetadataString | Tok::Exclaim
        ) {
            let id = self.md_operand_required()?;
            return Ok(Value::metadata(id));
        }
        let (v, t) = self.typed_value()?;
        let id = self.md_value(t, v);
        Ok(Value::metadata(id))
    }
}
