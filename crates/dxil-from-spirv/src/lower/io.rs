//! Stage inputs and outputs: built-in variables that DXIL reads through operations
//! (thread ids), and signature elements.

use dxil_module::Value;
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, StorageClass};

use super::Tr;
use super::memory::{Base, Ptr};
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::spv::Type;

/// One stage variable.
#[derive(Clone, Debug)]
pub struct IoVar {
    pub var: u32,
    pub class: StorageClass,
    pub ty: u32,
    pub builtin: Option<BuiltIn>,
}

#[derive(Default)]
pub struct Io {
    pub vars: Vec<IoVar>,
}

impl Tr<'_> {
    pub fn add_io(&mut self, var: u32, class: StorageClass, pointee: u32) -> Result<()> {
        let d = self.spv.decor.get(var);
        let builtin = d.builtin;
        if builtin.is_none() && self.model == spirv::ExecutionModel::GLCompute {
            return Err(malformed("a compute shader input that is not a built-in"));
        }
        if builtin.is_none() {
            return Err(unsupported("stage inputs and outputs of graphics shaders"));
        }
        self.io.vars.push(IoVar {
            var,
            class,
            ty: pointee,
            builtin,
        });
        Ok(())
    }

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
        let ix = self.index_operand(idx)?;
        let elem = self.element_type(p.ty)?;
        let per = self.leaf_count(elem, 0)?;
        match ix {
            Err(k) => p.off += k * per,
            Ok(v) => self.add_dynamic(p, v, per)?,
        }
        p.ty = elem;
        Ok(())
    }

    pub fn load_io(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Value>> {
        let (Base::Input(i) | Base::Output(i)) = p.base else {
            return Err(crate::error::internal("not a stage variable"));
        };
        let v = self.io.vars[i as usize].clone();
        let Some(b) = v.builtin else {
            return Err(unsupported("stage variables that are not built-ins"));
        };
        let n = self.leaf_count(ty, 0)?;
        let mut out = Vec::with_capacity(n as usize);
        for k in 0..n {
            let comp = p.off + k;
            let val = match p.dyn_off {
                None => self.builtin_component(b, comp as u32)?,
                Some(d) => {
                    // A dynamically indexed built-in vector: select among its components.
                    let total = self.leaf_count(v.ty, 0)?;
                    let mut acc = self.builtin_component(b, (total - 1) as u32)?;
                    for c in (0..total - 1).rev() {
                        let e = self.builtin_component(b, c as u32)?;
                        let kc = self.b.i32c(c as i64 - comp as i64 + comp as i64);
                        let want = self.b.i32c(comp as i64);
                        let idx = self.b.binary(dxil_module::BinOp::Add, d, want)?;
                        let is = self.b.cmp(dxil_module::Predicate::ICMP_EQ, idx, kc)?;
                        acc = self.b.select(is, e, acc)?;
                    }
                    acc
                }
            };
            out.push(val);
        }
        let kinds = self.leaf_kinds(ty)?;
        for (v, k) in out.iter_mut().zip(kinds) {
            let have = self.b.scalar_type_of(*v)?;
            if have != k {
                *v = self.from_slot(*v, have, k)?;
            }
        }
        Ok(out)
    }

    fn builtin_component(&mut self, b: BuiltIn, comp: u32) -> Result<Value> {
        let i32t = self.b.t.i32;
        let c = self.b.i32c(i64::from(comp));
        let (op, args): (OpCode, Vec<Value>) = match b {
            BuiltIn::GlobalInvocationId => (OpCode::ThreadId, vec![c]),
            BuiltIn::LocalInvocationId => (OpCode::ThreadIdInGroup, vec![c]),
            BuiltIn::WorkgroupId => (OpCode::GroupId, vec![c]),
            BuiltIn::LocalInvocationIndex => (OpCode::FlattenedThreadIdInGroup, vec![]),
            BuiltIn::SubgroupLocalInvocationId => {
                self.features.wave_ops = true;
                (OpCode::WaveGetLaneIndex, vec![])
            }
            BuiltIn::SubgroupSize => {
                self.features.wave_ops = true;
                (OpCode::WaveGetLaneCount, vec![])
            }
            BuiltIn::WorkgroupSize => {
                let size = self.workgroup_size()?;
                return Ok(self.b.i32c(i64::from(size[comp as usize % 3])));
            }
            BuiltIn::NumWorkgroups => {
                return Err(crate::error::inexpressible(
                    "NumWorkgroups (D3D12 shaders cannot read the dispatch size)",
                ));
            }
            other => return Err(unsupported(format!("built-in {other:?}"))),
        };
        self.b.dxop(op, Some(i32t), i32t, &args)
    }

    pub fn store_io(&mut self, _p: &Ptr, _vals: &[Value]) -> Result<()> {
        Err(unsupported("stage outputs"))
    }

    /// Writes the shadowed outputs before returning from `@main`.
    pub fn write_outputs(&mut self) -> Result<()> {
        Ok(())
    }

    pub fn io_prologue(&mut self) -> Result<()> {
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

#[allow(dead_code)]
fn _types(_: Type, _: Scalar) {}

/// The signature part of an entry point's metadata.
#[derive(Default)]
pub struct SigMeta {}

impl SigMeta {
    pub fn build(&self, _md: &mut crate::metadata::Md<'_>) -> Result<Option<dxil_module::MdId>> {
        Ok(None)
    }
}

/// Stage-specific entry properties (GS, HS, DS, MS, AS state).
#[derive(Default)]
pub struct StageProps {}

impl StageProps {
    pub fn build(
        &self,
        _md: &mut crate::metadata::Md<'_>,
    ) -> Result<Vec<(u32, dxil_module::MdId)>> {
        Ok(Vec::new())
    }
}

impl Tr<'_> {
    pub fn signature_metadata(&mut self) -> Result<SigMeta> {
        Ok(SigMeta::default())
    }

    pub fn stage_properties(&mut self) -> Result<StageProps> {
        Ok(StageProps::default())
    }
}
