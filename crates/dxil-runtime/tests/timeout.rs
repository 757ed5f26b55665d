//! A dispatch that never finishes must end the run with a timeout instead of hanging, and the
//! process must still be able to exit afterwards. Kept in its own test binary, and run in a child
//! process, because the spinning shader keeps the device busy until the process ends.

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

const CHILD_ENV: &str = "DXIL_RUNTIME_TIMEOUT_CHILD";

/// Runs the scenario in a child process, since after a timeout the process must leave through
/// `exit_now` (a normal exit waits for the stuck dispatch on some drivers), and checks that the
/// child finished on its own within a deadline.
#[test]
fn a_spinning_dispatch_times_out_and_the_process_still_exits() {
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args([
            "--ignored",
            "--exact",
            "timeout_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        // A hang guard: the child's dispatch never ends, so the child exits only if the timeout
        // fired and nothing waited for the dispatch afterwards.
        if started.elapsed() > Duration::from_secs(600) {
            child.kill().unwrap();
            panic!(
                "the child did not exit within 600 s: a run or the runtime's drop waited for its spinning dispatch"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("{text}");
    assert!(status.success(), "child failed ({status}):\n{text}");
    assert!(
        text.contains("CHILD-TIMED-OUT") || text.contains("SKIPPED"),
        "the child never reached its end:\n{text}"
    );
}

#[test]
#[ignore = "helper: run in a child process by a_spinning_dispatch_times_out_and_the_process_still_exits"]
fn timeout_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        // Run directly (say with --include-ignored) it would end the whole harness through
        // exit_now; the parent test runs it in its own process instead.
        eprintln!("timeout_child runs only as the child of its parent test");
        return;
    }
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
        ..RunOptions::default()
    };
    // The dispatch spins forever: that `run` returns at all shows the timeout fired (the parent
    // test guards against a hang); how long it took depends on the machine and is only printed.
    let started = Instant::now();
    let err = runtime.run(&case, &module, &options).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, RunError::Timeout { .. }), "{err}");
    assert_eq!(err.exit_code(), 2);
    assert!(runtime.is_poisoned());
    assert!(matches!(
        runtime.run(&case, &module, &options),
        Err(RunError::Poisoned)
    ));
    // Dropping must not wait for the spinning dispatch (it would never return).
    drop(runtime);
    println!("CHILD-TIMED-OUT after {took:?}");
    assert!(err.device_is_stuck());
    dxil_runtime::exit_now(0);
}
