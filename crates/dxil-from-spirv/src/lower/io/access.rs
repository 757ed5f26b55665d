//! Reading and writing stage variables through their leaves: pointers into them, loads, stores,
//! the prologue that reads inputs into local copies and the epilogue that writes outputs.

use super::*;

impl Tr<'_> {
    pub fn io_pointer(&mut self, var: u32, class: StorageClass, pointee: u32) -> Result<Ptr> {
        let i = self
            .io
            .vars
            .iter()
            .position(|v| v.var == var)
            .ok_or_else(|| crate::error::internal(format!("stage variable %{var} not collected")))?
            as u32;
        Ok(Ptr::new(
            if class == StorageClass::Input {
                Base::Input(i)
            } else {
                Base::Output(i)
            },
            pointee,
        ))
    }

    pub fn io_step(&mut self, p: &mut Ptr, idx: u32) -> Result<()> {
        let (Base::Input(i) | Base::Output(i)) = p.base else {
            return Err(crate::error::internal("not a stage variable"));
        };
        let v = &self.io.vars[i as usize];
        if v.per_vertex && p.vertex.is_none() && p.ty == v.ty {
            let x = self.scalar(idx)?;
            p.vertex = Some(self.int_to_i32(x, false)?);
            p.ty = self.element_type(p.ty)?;
            return Ok(());
        }
        let ix = self.index_operand(idx)?;
        match self.spv.ty(p.ty)? {
            Type::Struct { members } => {
                let Err(k) = ix else {
                    return Err(malformed("struct member index is not a constant"));
                };
                if k as u32 >= members.1 {
                    return Err(malformed("member index out of range"));
                }
                let mut off = 0;
                for j in 0..k as u32 {
                    off += self.leaf_count(self.spv.type_lists[(members.0 + j) as usize], 0)?;
                }
                p.off += off;
                p.ty = self.spv.type_lists[(members.0 + k as u32) as usize];
            }
            _ => {
                let elem = self.element_type(p.ty)?;
                let per = self.leaf_count(elem, 0)?;
                match ix {
                    Err(k) => p.off += k * per,
                    Ok(v) => self.add_dynamic(p, v, per)?,
                }
                p.ty = elem;
            }
        }
        Ok(())
    }

    /// The leaves a pointer reaches: (first leaf, count).
    pub(super) fn io_leaf_range(&mut self, p: &Ptr, ty: u32) -> Result<(usize, usize)> {
        let n = self.leaf_count(ty, 0)? as usize;
        Ok((p.off as usize, n))
    }

    pub fn load_io(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Value>> {
        let (Base::Input(i) | Base::Output(i)) = p.base else {
            return Err(crate::error::internal("not a stage variable"));
        };
        if matches!(p.base, Base::Output(_)) && self.model == EM::MeshEXT {
            return Err(unsupported(
                "reading a mesh shader output back (DXIL mesh outputs are written only)",
            ));
        }
        let other_control_point = matches!(self.hull, Some(HullPhase::PatchConstant { .. }))
            && self.io.vars[i as usize].per_vertex;
        if let (Base::Output(_), Some(shadow), false) =
            (p.base, self.io.vars[i as usize].shadow, other_control_point)
        {
            let sp = self.shadow_ptr(i, shadow, p)?;
            return self.load_local(&sp, ty);
        }
        let (start, n) = self.io_leaf_range(p, ty)?;
        let kinds = self.leaf_kinds(ty)?;
        if let Some(d) = p.dyn_off
            && !self.dynamic_rows_suffice(i, p)
        {
            return self.load_io_select(i, p, d, &kinds[..n.min(kinds.len())]);
        }
        let mut out = Vec::with_capacity(n);
        for (k, kind) in kinds.iter().enumerate().take(n) {
            let leaf = *self.io.vars[i as usize]
                .leaves
                .get(start + k)
                .ok_or_else(|| malformed("access past the end of a stage variable"))?;
            let v = self.read_leaf(leaf, p, *kind)?;
            out.push(v);
        }
        Ok(out)
    }

    /// Whether a dynamic offset into stage variable `var` moves whole signature rows, so that
    /// a load can index the rows (else it reads every leaf the offset can reach).
    fn dynamic_rows_suffice(&mut self, var: u32, p: &Ptr) -> bool {
        let leaves = &self.io.vars[var as usize].leaves;
        let mut elems: Vec<(SigKind, u32)> = Vec::new();
        for leaf in leaves {
            match *leaf {
                Leaf::Op(_) => return false,
                Leaf::Sig { sig, elem, .. } if !elems.contains(&(sig, elem)) => {
                    elems.push((sig, elem))
                }
                _ => {}
            }
        }
        elems.into_iter().all(|(sig, elem)| {
            let cols = u32::from(self.signature_mut(sig).elems[elem as usize].cols);
            cols <= 1 || p.dyn_align.is_multiple_of(cols)
        })
    }

    /// A load at a dynamic offset that moves within rows (a vector's component, a built-in's):
    /// every leaf the offset can reach is read, and a chain of selects on the offset picks
    /// each result's. An offset past the variable gives the first candidate (D3D12 leaves
    /// out-of-range indexing of inputs undefined).
    fn load_io_select(
        &mut self,
        var: u32,
        p: &Ptr,
        dyn_off: Value,
        kinds: &[Scalar],
    ) -> Result<Vec<Value>> {
        /// Candidate leaves read per result: beyond this, the selects cost more than the
        /// shader is likely to gain.
        const MAX_CANDIDATES: u64 = 64;
        let total = self.io.vars[var as usize].leaves.len() as u64;
        let step = u64::from(p.dyn_align.max(1));
        let fixed = Ptr {
            dyn_off: None,
            ..*p
        };
        let mut out = Vec::with_capacity(kinds.len());
        for (k, &kind) in kinds.iter().enumerate() {
            let first = p.off + k as u64;
            if first >= total {
                return Err(malformed("access past the end of a stage variable"));
            }
            if (total - first).div_ceil(step) > MAX_CANDIDATES {
                return Err(unsupported(
                    "dynamic indexing that moves within a row of a stage variable over more                      than 64 elements",
                ));
            }
            let mut acc: Option<Value> = None;
            let mut at = first;
            while at < total {
                let leaf = self.io.vars[var as usize].leaves[at as usize];
                let v = self.read_leaf(leaf, &fixed, kind)?;
                acc = Some(match acc {
                    None => v,
                    Some(prev) => {
                        let delta = self.b.i32c((at - first) as i64);
                        let hit = self
                            .b
                            .cmp(dxil_module::Predicate::ICMP_EQ, dyn_off, delta)?;
                        self.b.select(hit, v, prev)?
                    }
                });
                at += step;
            }
            out.push(acc.ok_or_else(|| malformed("access past the end of a stage variable"))?);
        }
        Ok(out)
    }

    pub(super) fn read_leaf(&mut self, leaf: Leaf, p: &Ptr, kind: Scalar) -> Result<Value> {
        let raw = match leaf {
            Leaf::Op(op) => {
                if p.dyn_off.is_some() {
                    return Err(unsupported("dynamic indexing into a built-in vector"));
                }
                self.builtin_value(op)?
            }
            Leaf::Dropped => return Ok(self.b.zero(kind)),
            Leaf::Sig {
                sig,
                elem,
                row,
                col,
            } => {
                let (row, col) = self.dynamic_row(sig, elem, row, col, p)?;
                let s = self.sig_scalar(sig, elem)?;
                let t = self.b.scalar(s);
                let id = self.b.i32c(i64::from(elem));
                let colv = self.b.i8c(i64::from(col));
                let vertex = match p.vertex {
                    Some(v) => v,
                    None => self.b.undef_scalar(Scalar::I32),
                };
                // A constant control point past the patch reads nothing (the arrays of GLSL
                // are sized gl_MaxPatchVertices).
                if let Some(k) = p.vertex.and_then(|v| self.b.as_const_int(v)) {
                    let limit = match (self.model, sig) {
                        (EM::TessellationControl, SigKind::Output) => {
                            Some(self.output_control_points()?)
                        }
                        (EM::TessellationControl | EM::TessellationEvaluation, SigKind::Input) => {
                            Some(self.input_control_points()?)
                        }
                        _ => None,
                    };
                    if limit.is_some_and(|n| k < 0 || k >= i64::from(n)) {
                        return Ok(self.b.zero(kind));
                    }
                }
                self.mark_usage(sig, elem, col);
                if let (EM::Fragment, Some(v)) = (self.model, p.vertex) {
                    let v = match self.b.as_const_int(v) {
                        Some(k) => self.b.i8c(k),
                        None => self.b.trunc_to_i8(v)?,
                    };
                    self.features.barycentrics = true;
                    self.features.need_sm(6, 1);
                    let raw =
                        self.b
                            .dxop(OpCode::AttributeAtVertex, Some(t), t, &[id, row, colv, v])?;
                    let have = self.b.scalar_type_of(raw)?;
                    return if have == kind {
                        Ok(raw)
                    } else {
                        self.slot_to_scalar(raw, have, kind)
                    };
                }
                let code = match sig {
                    SigKind::Patch if self.model == EM::TessellationEvaluation => {
                        OpCode::LoadPatchConstant
                    }
                    SigKind::Output if self.model == EM::TessellationControl => {
                        OpCode::LoadOutputControlPoint
                    }
                    _ => OpCode::LoadInput,
                };
                if code == OpCode::LoadPatchConstant {
                    self.b.dxop(code, Some(t), t, &[id, row, colv])?
                } else {
                    self.b.dxop(code, Some(t), t, &[id, row, colv, vertex])?
                }
            }
        };
        let have = self.b.scalar_type_of(raw)?;
        if have == kind {
            Ok(raw)
        } else {
            self.slot_to_scalar(raw, have, kind)
        }
    }

    /// Row (possibly dynamic) and column of a leaf reached through a pointer with a dynamic
    /// offset: the offset must move whole rows.
    pub(in crate::lower) fn dynamic_row(
        &mut self,
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
        p: &Ptr,
    ) -> Result<(Value, u8)> {
        let base = self.b.i32c(i64::from(row));
        let Some(d) = p.dyn_off else {
            return Ok((base, col));
        };
        let cols = u32::from(self.signature_mut(sig).elems[elem as usize].cols);
        if !p.dyn_align.is_multiple_of(cols.max(1)) && cols != 1 {
            return Err(unsupported(
                "dynamic indexing that moves within a row of a stage variable",
            ));
        }
        let r = if cols == 1 {
            d
        } else {
            let k = self.b.i32c(i64::from(cols));
            self.b.binary(BinOp::UDiv, d, k)?
        };
        Ok((self.b.binary(BinOp::Add, r, base)?, col))
    }

    pub(in crate::lower) fn sig_scalar(&mut self, sig: SigKind, elem: u32) -> Result<Scalar> {
        let comp = self.signature_mut(sig).elems[elem as usize].comp;
        Ok(match comp {
            ComponentType::F32 => Scalar::F32,
            ComponentType::F16 => Scalar::F16,
            ComponentType::I16 | ComponentType::U16 => Scalar::I16,
            _ => Scalar::I32,
        })
    }

    pub(in crate::lower) fn mark_usage(&mut self, sig: SigKind, elem: u32, col: u8) {
        if let Some(e) = self.signature_mut(sig).elems.get_mut(elem as usize) {
            e.usage |= 1 << (e.col + col);
        }
    }

    pub(super) fn builtin_value(&mut self, op: BuiltinOp) -> Result<Value> {
        let i32t = self.b.t.i32;
        let i1 = self.b.t.i1;
        let f32t = self.b.t.f32;
        let comp = |tr: &mut Self, c: u8| tr.b.i32c(i64::from(c));
        Ok(match op {
            BuiltinOp::ThreadId(c) => {
                let k = comp(self, c);
                self.b.dxop(OpCode::ThreadId, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::GroupId(c) => {
                let k = comp(self, c);
                self.b.dxop(OpCode::GroupId, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::ThreadIdInGroup(c) => {
                let k = comp(self, c);
                self.b
                    .dxop(OpCode::ThreadIdInGroup, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::FlattenedThreadIdInGroup => {
                self.b
                    .dxop(OpCode::FlattenedThreadIdInGroup, Some(i32t), i32t, &[])?
            }
            BuiltinOp::LaneIndex => {
                self.features.wave_ops = true;
                self.b.dxop(OpCode::WaveGetLaneIndex, None, i32t, &[])?
            }
            BuiltinOp::LaneCount => {
                self.features.wave_ops = true;
                self.b.dxop(OpCode::WaveGetLaneCount, None, i32t, &[])?
            }
            BuiltinOp::WorkgroupSize(c) => {
                let size = self.workgroup_size()?;
                self.b.i32c(i64::from(size[usize::from(c) % 3]))
            }
            BuiltinOp::SubgroupMask(b, c) => self.subgroup_mask(b, c)?,
            BuiltinOp::NumSubgroups | BuiltinOp::SubgroupId => {
                self.features.wave_ops = true;
                let lanes = self.b.dxop(OpCode::WaveGetLaneCount, None, i32t, &[])?;
                let x = if op == BuiltinOp::SubgroupId {
                    self.b
                        .dxop(OpCode::FlattenedThreadIdInGroup, Some(i32t), i32t, &[])?
                } else {
                    let [x, y, z] = self.workgroup_size()?;
                    let total = x.saturating_mul(y).saturating_mul(z);
                    let t = self.b.i32c(i64::from(total));
                    let one = self.b.i32c(1);
                    let l1 = self.b.binary(BinOp::Sub, lanes, one)?;
                    self.b.binary(BinOp::Add, t, l1)?
                };
                self.b.binary(BinOp::UDiv, x, lanes)?
            }
            BuiltinOp::SampleIndex => self.b.dxop(OpCode::SampleIndex, Some(i32t), i32t, &[])?,
            BuiltinOp::FragSize { comp, elem } => {
                self.mark_usage(SigKind::Input, elem, 0);
                let id = self.b.i32c(i64::from(elem));
                let row = self.b.i32c(0);
                let col = self.b.i8c(0);
                let vertex = self.b.undef_scalar(Scalar::I32);
                let rate =
                    self.b
                        .dxop(OpCode::LoadInput, Some(i32t), i32t, &[id, row, col, vertex])?;
                // Width: 1 << bits 2-3; height: 1 << bits 0-1.
                let shift = if comp == 0 {
                    let two = self.b.i32c(2);
                    self.b.binary(BinOp::LShr, rate, two)?
                } else {
                    rate
                };
                let three = self.b.i32c(3);
                let log2 = self.b.binary(BinOp::And, shift, three)?;
                let one = self.b.i32c(1);
                self.b.binary(BinOp::Shl, one, log2)?
            }
            BuiltinOp::SamplePosition(c) => {
                let index = self.b.dxop(OpCode::SampleIndex, Some(i32t), i32t, &[])?;
                let pos_ty = self.b.named_struct("dx.types.SamplePos", &[f32t, f32t]);
                let pos = self.b.dxop(
                    OpCode::RenderTargetGetSamplePosition,
                    None,
                    pos_ty,
                    &[index],
                )?;
                let v = self.b.extract_value(pos, u32::from(c.min(1)), f32t)?;
                let half = self
                    .b
                    .const_float_bits(Scalar::F32, 0.5f32.to_bits().into());
                self.b.binary(BinOp::FAdd, v, half)?
            }
            BuiltinOp::Coverage => self.b.dxop(OpCode::Coverage, Some(i32t), i32t, &[])?,
            BuiltinOp::InnerCoverage => {
                self.features.inner_coverage = true;
                self.b.dxop(OpCode::InnerCoverage, Some(i32t), i32t, &[])?
            }
            BuiltinOp::Helper => {
                self.features.need_sm(6, 6);
                self.b.dxop(OpCode::IsHelperLane, Some(i1), i1, &[])?
            }
            BuiltinOp::ViewId => {
                self.features.need_sm(6, 1);
                self.features.view_id = true;
                self.b.dxop(OpCode::ViewID, Some(i32t), i32t, &[])?
            }
            BuiltinOp::PrimitiveId => self.b.dxop(OpCode::PrimitiveID, Some(i32t), i32t, &[])?,
            BuiltinOp::GsInstanceId => self.b.dxop(OpCode::GSInstanceID, Some(i32t), i32t, &[])?,
            BuiltinOp::OutputControlPointId => match self.hull {
                Some(HullPhase::PatchConstant { invocation }) => invocation,
                _ => self
                    .b
                    .dxop(OpCode::OutputControlPointID, Some(i32t), i32t, &[])?,
            },
            BuiltinOp::StartVertex => {
                self.features.need_sm(6, 8);
                self.b
                    .dxop(OpCode::StartVertexLocation, Some(i32t), i32t, &[])?
            }
            BuiltinOp::StartInstance => {
                self.features.need_sm(6, 8);
                self.b
                    .dxop(OpCode::StartInstanceLocation, Some(i32t), i32t, &[])?
            }
            BuiltinOp::PatchVertices => {
                let n = self.input_control_points()?;
                self.b.i32c(i64::from(n))
            }
            BuiltinOp::PrimitiveIndex(_) => {
                return Err(unsupported(
                    "reading mesh primitive indices back (DXIL's EmitIndices writes only)",
                ));
            }
            BuiltinOp::DomainLocation(c) => {
                let comps = if self.tess_domain() == dxil_shader::TessellatorDomain::Tri {
                    3
                } else {
                    2
                };
                if c >= comps {
                    return Ok(self.b.zero(Scalar::F32));
                }
                let k = self.b.i8c(i64::from(c));
                self.b
                    .dxop(OpCode::DomainLocation, Some(f32t), f32t, &[k])?
            }
        })
    }

    /// Word `c` of a subgroup lane mask (eq, ge, gt, le, lt).
    pub(super) fn subgroup_mask(&mut self, b: BuiltIn, c: u8) -> Result<Value> {
        let lane = self.builtin_value(BuiltinOp::LaneIndex)?;
        let base = self.b.i32c(i64::from(c) * 32);
        // Bits of this word at or above / below the lane: shift = lane - 32c.
        let rel = self.b.binary(BinOp::Sub, lane, base)?;
        let zero = self.b.i32c(0);
        let k32 = self.b.i32c(32);
        let all = self.b.i32c(-1);
        let one = self.b.i32c(1);
        let below = self.b.cmp(dxil_module::Predicate::ICMP_SLT, rel, zero)?;
        let above = self.b.cmp(dxil_module::Predicate::ICMP_SGE, rel, k32)?;
        let sh = self.binary_dxop(OpCode::IMax, rel, zero)?;
        let sh = self.binary_dxop(OpCode::IMin, sh, k32)?;
        let at = self.b.binary(BinOp::Shl, one, sh)?;
        let at_valid = self.b.binary(BinOp::Or, below, above)?;
        let eq = self.b.select(at_valid, zero, at)?;
        // ge mask of this word: all bits from `rel` up.
        let ge = self.b.binary(BinOp::Shl, all, sh)?;
        let ge = self.b.select(below, all, ge)?;
        let ge = self.b.select(above, zero, ge)?;
        Ok(match b {
            BuiltIn::SubgroupEqMask => eq,
            BuiltIn::SubgroupGeMask => ge,
            BuiltIn::SubgroupGtMask => {
                let x = self.b.binary(BinOp::Xor, eq, all)?;
                self.b.binary(BinOp::And, ge, x)?
            }
            BuiltIn::SubgroupLtMask => self.b.binary(BinOp::Xor, ge, all)?,
            _ => {
                let lt = self.b.binary(BinOp::Xor, ge, all)?;
                self.b.binary(BinOp::Or, lt, eq)?
            }
        })
    }

    pub(super) fn shadow_ptr(&mut self, var: u32, shadow: u32, p: &Ptr) -> Result<Ptr> {
        let v = &self.io.vars[var as usize];
        let mut sp = *p;
        sp.base = Base::Local(shadow);
        if self.hull.is_some() {
            // One control point's copy (see `hull`).
            sp.vertex = None;
            return Ok(sp);
        }
        if let Some(vertex) = p.vertex {
            // The shadow of a per-vertex output holds every vertex.
            let per = self.leaf_count(v.elem_ty, 0)?;
            let ty = v.elem_ty;
            let _ = ty;
            self.add_dynamic(&mut sp, vertex, per)?;
            sp.vertex = None;
        }
        Ok(sp)
    }

    pub fn store_io(&mut self, p: &Ptr, vals: &[Value]) -> Result<()> {
        let Base::Output(i) = p.base else {
            return Err(malformed("store to an input variable"));
        };
        if self.model == EM::MeshEXT {
            return self.store_mesh_output(i, p, vals);
        }
        let shadow = self.io.vars[i as usize]
            .shadow
            .ok_or_else(|| crate::error::internal("output without a local copy"))?;
        let sp = self.shadow_ptr(i, shadow, p)?;
        self.store_local(&sp, vals)
    }

    /// Local copies of the outputs, zeroed (D3D12 wants every system-value output written).
    pub fn io_prologue(&mut self) -> Result<()> {
        self.mesh_prologue()?;
        for i in 0..self.io.vars.len() {
            // A mesh shader's outputs are written where they are stored (see `mesh`).
            if self.io.vars[i].class != StorageClass::Output || self.model == EM::MeshEXT {
                continue;
            }
            // A hull shader function keeps one control point of a per-vertex output.
            let ty = if self.hull.is_some() && self.io.vars[i].per_vertex {
                self.io.vars[i].elem_ty
            } else {
                self.io.vars[i].ty
            };
            let l = self.new_local(ty, 0)?;
            self.io.vars[i].shadow = Some(l);
            let kinds = self.leaf_kinds(ty)?;
            let zeros: Vec<Value> = kinds.iter().map(|&k| self.b.zero(k)).collect();
            let p = Ptr::new(Base::Local(l), ty);
            self.store_local(&p, &zeros)?;
        }
        Ok(())
    }

    /// Writes every output from its local copy (at the return of `@main`, or per emitted
    /// geometry-shader vertex).
    pub fn write_outputs(&mut self) -> Result<()> {
        for i in 0..self.io.vars.len() {
            let (class, shadow, ty) = {
                let v = &self.io.vars[i];
                (v.class, v.shadow, v.ty)
            };
            if class != StorageClass::Output {
                continue;
            }
            let Some(shadow) = shadow else { continue };
            let ty = if self.hull.is_some() && self.io.vars[i].per_vertex {
                self.io.vars[i].elem_ty
            } else {
                ty
            };
            let p = Ptr::new(Base::Local(shadow), ty);
            let vals = self.load_local(&p, ty)?;
            let leaves = self.io.vars[i].leaves.clone();
            for (k, v) in vals.into_iter().enumerate() {
                let Some(&Leaf::Sig {
                    sig,
                    elem,
                    row,
                    col,
                }) = leaves.get(k % leaves.len().max(1))
                else {
                    continue;
                };
                // A hull shader's `@main` writes control points, its patch-constant
                // function the patch.
                match (self.hull, sig) {
                    (Some(HullPhase::ControlPoint), SigKind::Patch) => continue,
                    (Some(HullPhase::PatchConstant { .. }), SigKind::Output) => continue,
                    _ => {}
                }
                self.write_leaf(sig, elem, row, col, v)?;
            }
        }
        Ok(())
    }

    pub(in crate::lower) fn write_leaf(
        &mut self,
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
        v: Value,
    ) -> Result<()> {
        let s = self.sig_scalar(sig, elem)?;
        let have = self.b.scalar_type_of(v)?;
        let v = if have == s {
            v
        } else {
            self.scalar_to_slot(v, have, s)?
        };
        let t = self.b.scalar(s);
        let id = self.b.i32c(i64::from(elem));
        let r = self.b.i32c(i64::from(row));
        let c = self.b.i8c(i64::from(col));
        self.mark_usage(sig, elem, col);
        let void = self.b.t.void;
        let code = if sig == SigKind::Patch {
            OpCode::StorePatchConstant
        } else {
            OpCode::StoreOutput
        };
        self.b.dxop(code, Some(t), void, &[id, r, c, v])?;
        Ok(())
    }

    /// The workgroup size: `LocalSize`, `LocalSizeId`, or the `WorkgroupSize` built-in.
    pub fn workgroup_size(&self) -> Result<[u32; 3]> {
        for (id, d) in self.spv.defs.iter().enumerate() {
            if d.offset != 0
                && self.spv.decor.get(id as u32).builtin == Some(BuiltIn::WorkgroupSize)
            {
                let inst = self.spv.inst_at(d.offset)?;
                let parts = inst.rest(2);
                if parts.len() == 3 {
                    let mut out = [1u32; 3];
                    for (o, &p) in out.iter_mut().zip(parts) {
                        *o = self.const_u64(p)? as u32;
                    }
                    return Ok(out);
                }
            }
        }
        for em in &self.spv.exec_modes {
            if em.function != self.entry.function {
                continue;
            }
            if matches!(
                em.mode,
                spirv::ExecutionMode::LocalSize | spirv::ExecutionMode::LocalSizeId
            ) && em.operands.len() >= 3
            {
                let mut out = [1u32; 3];
                for (o, &v) in out.iter_mut().zip(&em.operands) {
                    *o = if em.by_id {
                        self.const_u64(v)? as u32
                    } else {
                        v
                    };
                }
                return Ok(out);
            }
        }
        Err(malformed("compute shader without a workgroup size"))
    }
}
