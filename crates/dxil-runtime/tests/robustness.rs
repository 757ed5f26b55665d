//! Out-of-bounds buffer access behaves as D3D12 defines it (reads give zero, writes are dropped),
//! and a push-constant block declared by the module is bound and zero-filled.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use dxil_runtime::{Case, RunOptions, Runtime, ShaderModule};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use spirv::{BuiltIn, Capability, Decoration, StorageClass};

/// `u0[gid + 10] = t0[gid + 12 + pc.x] + 1` with 8 threads over 16-word buffers.
fn module() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let v3 = b.type_vector(uint, 3);
    let rta = b.type_runtime_array(uint);
    let block = b.type_struct([rta]);
    let pc_block = b.type_struct([uint]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let pc_ptr = b.type_pointer(None, StorageClass::PushConstant, pc_block);
    let pc_uint_ptr = b.type_pointer(None, StorageClass::PushConstant, uint);
    let uint_ptr = b.type_pointer(None, StorageClass::StorageBuffer, uint);
    let in_ptr = b.type_pointer(None, StorageClass::Input, v3);
    let fn_ty = b.type_function(void, []);
    let c0 = b.constant_bit32(uint, 0);
    let c1 = b.constant_bit32(uint, 1);
    let c10 = b.constant_bit32(uint, 10);
    let c12 = b.constant_bit32(uint, 12);
    let src = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    let dst = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    let pc = b.variable(pc_ptr, None, StorageClass::PushConstant, None);
    let gid_var = b.variable(in_ptr, None, StorageClass::Input, None);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(pc_block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(pc_block, Decoration::Block, []);
    b.decorate(
        gid_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
    );
    for (var, binding) in [(src, 100), (dst, 200)] {
        b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    }

    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let gid3 = b.load(v3, None, gid_var, None, []).unwrap();
    let gid = b.composite_extract(uint, None, gid3, [0]).unwrap();
    let pc_x_ptr = b.access_chain(pc_uint_ptr, None, pc, [c0]).unwrap();
    let pc_x = b.load(uint, None, pc_x_ptr, None, []).unwrap();
    let a = b.i_add(uint, None, gid, c12).unwrap();
    let a = b.i_add(uint, None, a, pc_x).unwrap();
    let src_ptr = b.access_chain(uint_ptr, None, src, [c0, a]).unwrap();
    let v = b.load(uint, None, src_ptr, None, []).unwrap();
    let v = b.i_add(uint, None, v, c1).unwrap();
    let o = b.i_add(uint, None, gid, c10).unwrap();
    let dst_ptr = b.access_chain(uint_ptr, None, dst, [c0, o]).unwrap();
    b.store(dst_ptr, v, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(
        spirv::ExecutionModel::GLCompute,
        main,
        "main",
        [src, dst, pc, gid_var],
    );
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [8, 1, 1]);
    b.module().assemble()
}

const CASE: &str = r#"
shader = "oob.dxil"
dispatch = [1, 1, 1]

[[resource]]
bind = "t0"
kind = "raw"
size = 64
init = "iota-u32"

[[resource]]
bind = "u0"
kind = "raw"
size = 64
init = "fill-u32:7"

[[expect]]
bind = "u0"
u32 = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 13, 14, 15, 16, 1, 1]
"#;

#[test]
fn out_of_bounds_reads_are_zero_and_writes_are_dropped() {
    let runtime = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            dxil_corpus::skip_or_fail(format_args!("no Vulkan device ({e})"));
            return;
        }
    };
    let info = runtime.device_info();
    assert!(
        info.has_feature("robust_buffer_access"),
        "{:?}",
        info.enabled_features
    );
    if !info.has_feature("robust_buffer_access2") {
        // robustBufferAccess alone may return any in-bounds value for an out-of-bounds read.
        dxil_corpus::skip_or_fail(format_args!("{} lacks robustBufferAccess2", info.name));
        return;
    }
    let case = Case::parse(CASE, "oob.toml").unwrap();
    let shader = ShaderModule {
        words: module(),
        entry: String::new(),
    };
    let report = runtime.run(&case, &shader, &RunOptions::default()).unwrap();
    for m in &report.mismatches {
        eprintln!("{m}");
    }
    assert!(report.passed());
    // The read-only input is untouched and dumps as it started.
    let t0 = &report.output("t0").unwrap().bytes;
    assert_eq!(&t0[60..64], &15u32.to_le_bytes());
}
