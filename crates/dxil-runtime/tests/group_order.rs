//! Thread groups run one at a time in a given order ([`GroupOrder`]): a shader whose groups store
//! to the same words ends with the last group's values, so the two orders give different results;
//! a shader whose groups store to words of their own gives the same in both.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use dxil_runtime::{Case, GroupOrder, RunError, RunOptions, Runtime, ShaderModule};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use spirv::{BuiltIn, Capability, Decoration, StorageClass};

/// Groups of the cases below: six, numbered x first.
const GRID: [u32; 3] = [3, 2, 1];
/// Threads per group.
const LANES: u32 = 4;

/// `u0[word] = group + 1`, with `group = wg.x + 3 * wg.y` and `word = lane` (every group stores to
/// words 0..4: `shared`) or `word = lane + 4 * group` (words of its own).
fn module(shared: bool) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let v3 = b.type_vector(uint, 3);
    let rta = b.type_runtime_array(uint);
    let block = b.type_struct([rta]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let uint_ptr = b.type_pointer(None, StorageClass::StorageBuffer, uint);
    let in_ptr = b.type_pointer(None, StorageClass::Input, v3);
    let fn_ty = b.type_function(void, []);
    let c0 = b.constant_bit32(uint, 0);
    let c1 = b.constant_bit32(uint, 1);
    let c_gx = b.constant_bit32(uint, GRID[0]);
    let c_lanes = b.constant_bit32(uint, LANES);
    let dst = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    let wg_var = b.variable(in_ptr, None, StorageClass::Input, None);
    let lane_var = b.variable(in_ptr, None, StorageClass::Input, None);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(block, Decoration::Block, []);
    b.decorate(
        wg_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupId)],
    );
    b.decorate(
        lane_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::LocalInvocationId)],
    );
    b.decorate(dst, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(dst, Decoration::Binding, [Operand::LiteralBit32(200)]);

    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let wg = b.load(v3, None, wg_var, None, []).unwrap();
    let wg_x = b.composite_extract(uint, None, wg, [0]).unwrap();
    let wg_y = b.composite_extract(uint, None, wg, [1]).unwrap();
    let row = b.i_mul(uint, None, wg_y, c_gx).unwrap();
    let group = b.i_add(uint, None, wg_x, row).unwrap();
    let lane3 = b.load(v3, None, lane_var, None, []).unwrap();
    let lane = b.composite_extract(uint, None, lane3, [0]).unwrap();
    let word = if shared {
        lane
    } else {
        let base = b.i_mul(uint, None, group, c_lanes).unwrap();
        b.i_add(uint, None, lane, base).unwrap()
    };
    let value = b.i_add(uint, None, group, c1).unwrap();
    let ptr = b.access_chain(uint_ptr, None, dst, [c0, word]).unwrap();
    b.store(ptr, value, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(
        spirv::ExecutionModel::GLCompute,
        main,
        "main",
        [dst, wg_var, lane_var],
    );
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [LANES, 1, 1]);
    b.module().assemble()
}

fn case(grid: [u32; 3]) -> Case {
    let text = format!(
        "shader = \"order.dxil\"\ndispatch = {grid:?}\n\n[[resource]]\nbind = \"u0\"\nkind = \"raw\"\nsize = 128\ninit = \"zero\"\n"
    );
    Case::parse(&text, "order.toml").unwrap()
}

fn runtime() -> Option<Runtime> {
    match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => Some(rt),
        Err(e) => {
            dxil_corpus::skip_or_fail(format_args!("no Vulkan device ({e})"));
            None
        }
    }
}

/// The first 32 words of `u0` after a run of `module(shared)` in `order`.
fn words(rt: &Runtime, shared: bool, order: Option<GroupOrder>) -> Vec<u32> {
    let shader = ShaderModule {
        words: module(shared),
        entry: String::new(),
    };
    let options = RunOptions {
        group_order: order,
        ..RunOptions::default()
    };
    let report = rt.run(&case(GRID), &shader, &options).unwrap();
    report
        .output("u0")
        .unwrap()
        .bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn the_last_group_to_run_leaves_its_values() {
    let Some(rt) = runtime() else { return };
    let forward = words(&rt, true, Some(GroupOrder::Forward));
    let reverse = words(&rt, true, Some(GroupOrder::Reverse));
    // Group 5 (x 2, y 1) runs last forward, group 0 last in reverse.
    assert_eq!(&forward[..4], &[6; 4]);
    assert_eq!(&reverse[..4], &[1; 4]);
    assert!(forward[4..].iter().chain(&reverse[4..]).all(|&w| w == 0));
}

#[test]
fn groups_with_words_of_their_own_agree_in_both_orders() {
    let Some(rt) = runtime() else { return };
    let expected: Vec<u32> = (0..32)
        .map(|w| if w < 24 { w / 4 + 1 } else { 0 })
        .collect();
    for order in [None, Some(GroupOrder::Forward), Some(GroupOrder::Reverse)] {
        assert_eq!(words(&rt, false, order), expected, "{order:?}");
    }
}

#[test]
fn too_many_groups_to_run_one_at_a_time_are_refused() {
    let Some(rt) = runtime() else { return };
    let shader = ShaderModule {
        words: module(false),
        entry: String::new(),
    };
    let options = RunOptions {
        group_order: Some(GroupOrder::Forward),
        ..RunOptions::default()
    };
    let grid = [GroupOrder::MAX_GROUPS / 2 + 1, 2, 1];
    match rt.run(&case(grid), &shader, &options) {
        Err(RunError::Unsupported(why)) => assert!(why.contains("one at a time"), "{why}"),
        other => panic!("{other:?}"),
    }
}
