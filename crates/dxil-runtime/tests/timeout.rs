//! A dispatch that never finishes must end the run with a timeout instead of hanging, and the
//! process must still be able to exit afterwards. Kept in its own test binary because the spinning
//! shader keeps a CPU device's worker busy until the process exits.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use dxil_runtime::{Case, RunError, RunOptions, Runtime, ShaderModule};
use rspirv::dr::{Builder, Operand};
use spirv::{Capability, Decoration, StorageClass};

/// `for (;;) { if (atomic_load(u0[1]) != 0) break; atomic_add(u0[0], 1); }` over a zero buffer.
fn spin_module() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let boolean = b.type_bool();
    let uint = b.type_int(32, 0);
    let rta = b.type_runtime_array(uint);
    let block = b.type_struct([rta]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let uint_ptr = b.type_pointer(None, StorageClass::StorageBuffer, uint);
    let fn_ty = b.type_function(void, []);
    let c0 = b.constant_bit32(uint, 0);
    let c1 = b.constant_bit32(uint, 1);
    let buf = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(block, Decoration::Block, []);
    b.decorate(buf, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(buf, Decoration::Binding, [Operand::LiteralBit32(200)]);

    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    let header = b.id();
    let body = b.id();
    let cont = b.id();
    let merge = b.id();
    b.begin_block(None).unwrap();
    b.branch(header).unwrap();
    b.begin_block(Some(header)).unwrap();
    b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])
        .unwrap();
    b.branch(body).unwrap();
    b.begin_block(Some(body)).unwrap();
    let p1 = b.access_chain(uint_ptr, None, buf, [c0, c1]).unwrap();
    let flag = b.atomic_load(uint, None, p1, c1, c0).unwrap();
    let p0 = b.access_chain(uint_ptr, None, buf, [c0, c0]).unwrap();
    b.atomic_i_add(uint, None, p0, c1, c0, c1).unwrap();
    b.branch(cont).unwrap();
    b.begin_block(Some(cont)).unwrap();
    let go_on = b.i_equal(boolean, None, flag, c0).unwrap();
    b.branch_conditional(go_on, header, merge, []).unwrap();
    b.begin_block(Some(merge)).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", [buf]);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
    use rspirv::binary::Assemble;
    b.module().assemble()
}

#[test]
fn a_spinning_dispatch_times_out_and_poisons_the_runtime() {
    let runtime = match Runtime::new(None) {
        Ok(rt) => rt,
        Err(e) if std::env::var_os("CI").is_some() => panic!("CI needs a Vulkan device: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no Vulkan device ({e})");
            return;
        }
    };
    let case = Case::parse(
        "shader = \"spin.dxil\"\ndispatch = [1, 1, 1]\n[[resource]]\nbind = \"u0\"\nkind = \"raw\"\nsize = 16\ninit = \"zero\"\n",
        "spin.toml",
    )
    .unwrap();
    let module = ShaderModule {
        words: spin_module(),
        entry: "main".into(),
    };
    let options = RunOptions {
        timeout: Duration::from_millis(500),
        dump_dir: None,
    };
    let started = Instant::now();
    let err = runtime.run(&case, &module, &options).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, RunError::Timeout { .. }), "{err}");
    assert_eq!(err.exit_code(), 2);
    assert!(took < Duration::from_secs(5), "the timeout took {took:?}");
    assert!(runtime.is_poisoned());
    assert!(matches!(
        runtime.run(&case, &module, &options),
        Err(RunError::Poisoned)
    ));
    // Dropping must not wait for the spinning dispatch.
    let dropped = Instant::now();
    drop(runtime);
    assert!(dropped.elapsed() < Duration::from_secs(1));
}
