//! Library (`lib_6_x`) resources: a library names its resources by global variables (the symbols of
//! `dx.resources`), and `createHandleForLib` takes a load of one, or of an element of its array. The handle is the
//! declared range and the element index relative to the range's first register; `!dx.nonuniform` on the element's
//! `getelementptr` marks a non-uniform index.

use dxil_module::{ConstData, InstKind, Value, ValueRef};

use super::res::{HandleIndex, HandleInfo};
use super::{Ctx, NONE};
use crate::error::{Error, Invalid, Unsupported};

impl<'a> Ctx<'a> {
    /// The handle `createHandleForLib` makes from `loaded`, the load of a resource variable.
    pub(super) fn lib_handle(&self, loaded: Value) -> Result<HandleInfo, Error> {
        let load = loaded.as_inst().ok_or_else(|| {
            self.invalid(Invalid::resource(
                "createHandleForLib of a value that is not a load of a resource variable",
            ))
        })?;
        let ptr = match self.inst_data(load).map(|d| &d.kind) {
            Some(InstKind::Load { ptr, .. }) => *ptr,
            _ => {
                return Err(self.invalid(Invalid::resource(
                    "createHandleForLib of a value that is not a load of a resource variable",
                )));
            }
        };
        let (global, index, nonuniform) = self.resource_element(ptr)?;
        let res = self
            .res
            .iter()
            .position(|r| r.heap.is_none() && r.decl.global == Some(global))
            .ok_or_else(|| {
                let name = self.m.global(global).map_or("?", |g| g.name.as_str());
                self.invalid(Invalid::resource(format!(
                    "createHandleForLib of @{}, which dx.resources does not declare",
                    name.trim_start_matches('\u{1}')
                )))
            })?;
        Ok(HandleInfo {
            res: res as u32,
            index,
            nonuniform,
            heap: None,
        })
    }

    /// The resource variable a pointer names, the element index and whether it is marked non-uniform.
    fn resource_element(
        &self,
        ptr: Value,
    ) -> Result<(dxil_module::GlobalId, HandleIndex, bool), Error> {
        let gep_operands: Vec<Value> = match ptr.get() {
            ValueRef::Global(g) => return Ok((g, HandleIndex::First, false)),
            ValueRef::Inst(i) => match self.inst_data(i).map(|d| &d.kind) {
                Some(InstKind::Gep { operands, .. }) => {
                    let body = self
                        .func_of(self.entry.function)
                        .and_then(|f| f.body.as_ref())
                        .ok_or_else(|| self.invalid(Invalid::reference("no function body")))?;
                    body.values(*operands).collect()
                }
                _ => return Err(self.unsupported_element()),
            },
            ValueRef::Const(c) => match self.m.constants.get(c).map(|k| &k.data) {
                Some(ConstData::Gep { operands, .. }) => {
                    self.m.constants.values_of(*operands).to_vec()
                }
                _ => return Err(self.unsupported_element()),
            },
            _ => return Err(self.unsupported_element()),
        };
        // `getelementptr [N x T]* @var, 0, index`: one level of array.
        let (Some(base), Some(&first), Some(&index), 3) = (
            gep_operands.first().and_then(|v| match v.get() {
                ValueRef::Global(g) => Some(g),
                _ => None,
            }),
            gep_operands.get(1),
            gep_operands.get(2),
            gep_operands.len(),
        ) else {
            return Err(self.unsupported_element());
        };
        if self.const_int(first) != Some(0) {
            return Err(self.unsupported_element());
        }
        let nonuniform = ptr.as_inst().is_some_and(|i| self.marked_nonuniform(i));
        Ok((base, HandleIndex::Relative(index), nonuniform))
    }

    #[cold]
    fn unsupported_element(&self) -> Error {
        self.unsupported(Unsupported::resource(
            "a library resource reached through other than its variable or one index into its array",
        ))
    }

    /// Does instruction `i` carry `!dx.nonuniform`?
    fn marked_nonuniform(&self, i: dxil_module::InstId) -> bool {
        let Some(kind) = self.m.metadata.kind_id("dx.nonuniform") else {
            return false;
        };
        self.func_of(self.entry.function)
            .and_then(|f| f.body.as_ref())
            .is_some_and(|b| b.attachments.iter().any(|a| a.inst == i && a.kind == kind))
    }

    /// The load of a resource variable that a `createHandleForLib` call (instruction `call`) takes: it stands for
    /// the handle too, so that its uses follow the handle's index and it lowers to nothing.
    pub(super) fn lib_handle_load(&self, args: &[u32]) -> Option<usize> {
        let v = Value(*args.get(1)?);
        let i = v.as_inst()?.index();
        (self.f.handle_of.get(i).copied() == Some(NONE)).then_some(i)
    }
}
