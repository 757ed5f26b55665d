//! The body of the `shader` fuzz target, kept here so that `cargo test` exercises it.

use dxil_module::{InstId, Module};

use crate::handle::{HandleInfo, HandleResolver};
use crate::module::DxilModule;
use crate::ops::OpCode;

/// Container bytes → program part → module → [`DxilModule`] → every `dx.op` call decoded and
/// every handle operand resolved. Panics only when an invariant fails: a decoded call must
/// name the opcode its constant operand holds, and the uncached decoder must agree with the
/// table.
pub fn fuzz_shader(data: &[u8]) {
    let Ok(container) = dxil_container::Container::parse_lenient(data) else {
        return;
    };
    let Some(Ok(program)) = container.program() else {
        return;
    };
    let Ok(module) = dxil_module::read::read_module(
        program.bitcode,
        program.bitcode_byte_offset_in_container as u64,
    ) else {
        return;
    };
    fuzz_module(&module);
}

/// The module part of [`fuzz_shader`], for inputs that are already modules.
pub fn fuzz_module(module: &Module) {
    let Ok(dxil) = DxilModule::from_module(module) else {
        return;
    };
    let _ = serde_json::to_string(&dxil);
    let _ = dxil.shader_flags().to_string();
    for (_, r) in dxil.resources.iter() {
        let _ = r.properties(module);
        let _ = r.hlsl_type_name();
    }
    let mut resolver = HandleResolver::new();
    let mut info = HandleInfo::default();
    for func in &module.functions {
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        for i in 0..body.insts.len() {
            let inst = InstId(i as u32);
            let decoded = dxil.dx_ops().decode(module, func, inst);
            let Ok(Some(call)) = decoded else { continue };
            let direct = crate::dxop::dx_op(module, func, inst);
            assert_eq!(
                direct.map(|c| c.op),
                Some(call.op),
                "{inst}: decoders disagree"
            );
            assert!(call.info().name.len() > 1);
            let _ = call.to_string();
            // Resolve every handle-like operand: the first operand of resource operations.
            if let Some(h) = call.arg(0)
                && call.opcode() != Some(OpCode::CreateHandleFromHeap)
            {
                resolver.resolve_into(&dxil, module, func, h, &mut info);
                let _ = info.properties(&dxil, module);
                let _ = info.resource();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        fuzz_shader(&[]);
        fuzz_shader(b"DXBC");
        fuzz_shader(&[0xff; 64]);
        fuzz_module(&Module::default());
    }
}
