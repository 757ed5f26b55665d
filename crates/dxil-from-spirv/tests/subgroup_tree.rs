//! Subgroup operations that DXIL has no instruction for (clustered and partitioned reductions,
//! min/max, bitwise and logical scans) go through a tree of `WaveReadLaneAt` over a lane mask.
//! `tests/data/subgroup_tree.comp` is compiled with glslang when the test runs; DXC's
//! validator must accept the translation, and run through `to-spirv` on the Vulkan device its
//! results must be those SPIR-V defines, computed here lane by lane (lavapipe does not run
//! SPV_NV_shader_subgroup_partitioned, so the original module cannot be the reference).

#[path = "support/glsl.rs"]
mod glsl;
mod support;
use support::listing;

/// Lanes of the workgroup; the shader writes one block of this many words per result.
const LANES: usize = 64;
/// The result blocks after the inputs (block 18 is the subgroup size).
const BLOCKS: usize = 19;

#[test]
fn subgroup_tree_validates() {
    let Some(words) = glsl::compile("subgroup_tree.comp", "tree-validates") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = listing(&container);
    for op in [
        "@dx.op.waveReadLaneAt.i32",
        "@dx.op.waveReadLaneAt.f32",
        "@dx.op.waveActiveBallot",
    ] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
    // The partitioned sums and xor scans keep WaveMultiPrefixOp; min/max go through the tree.
    assert!(text.contains("@dx.op.waveMultiPrefixOp.i32"), "{text}");
    // One loop per tree operation reads one lane per component and level: 15 operations on
    // scalars (the cluster of one lane is the value itself). The sibling lanes are searched
    // (two FirstbitLo) by the three clustered operations before the first scan (they stop
    // below the seventh level, so they leave no table), the first scan and the first
    // partitioned operation; the other scans, the cluster of two after them and the other
    // partitioned operations reuse them.
    // Calls, not declarations: a call's first operand is the opcode, `i32 N`.
    let calls = |name: &str| text.matches(&format!("@dx.op.{name}(i32 ")).count();
    let reads = calls("waveReadLaneAt.i32") + calls("waveReadLaneAt.f32");
    assert_eq!(reads, 15, "{text}");
    assert_eq!(calls("unaryBits.i32"), 10, "{text}");
    support::dxv("subgroup_tree", "subgroup_tree", &container);
}

/// What SPIR-V defines for lane `i`'s result `k`, with `s` lanes to a subgroup; `None` for
/// the lanes that skip the operations.
fn expected(x: &[u32], s: usize, i: usize, k: usize) -> Option<u32> {
    let active = |j: usize| j % 3 != 1;
    if !active(i) {
        return None;
    }
    let base = i / s * s;
    let lanes = |pred: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (base..base + s).filter(|&j| active(j) && pred(j)).collect()
    };
    let sx = |j: usize| x[j] as i32 - 50;
    let fx = |j: usize| x[j] as f32 * 0.5;
    let cluster = |c: usize| lanes(&|j| j / c == i / c);
    let upto = lanes(&|j| j <= i);
    let below = lanes(&|j| j < i);
    let part = lanes(&|j| x[j] % 4 == x[i] % 4);
    let part_below: Vec<usize> = part.iter().copied().filter(|&j| j < i).collect();
    let fmin = |l: &[usize]| l.iter().map(|&j| fx(j)).fold(f32::INFINITY, f32::min);
    Some(match k {
        1 => cluster(4).iter().map(|&j| x[j]).fold(0, u32::wrapping_add),
        2 => cluster(2).iter().map(|&j| x[j]).min()?,
        3 => cluster(4).iter().map(|&j| sx(j)).max()? as u32,
        4 => fx(i).to_bits(),
        5 => upto.iter().map(|&j| x[j]).min()?,
        6 => below.iter().map(|&j| sx(j)).max().unwrap_or(i32::MIN) as u32,
        7 => below.iter().fold(u32::MAX, |a, &j| a & x[j]),
        8 => upto.iter().fold(0, |a, &j| a | x[j]),
        9 => below.iter().fold(0, |a, &j| a ^ u32::from(x[j] > 40)),
        10 => fmin(&below).to_bits(),
        11 => cluster(2).iter().map(|&j| fx(j)).sum::<f32>().to_bits(),
        12 => part.iter().map(|&j| x[j]).fold(0, u32::wrapping_add),
        13 => part.iter().map(|&j| x[j]).min()?,
        14 => part.iter().filter(|&&j| j <= i).map(|&j| sx(j)).max()? as u32,
        15 => part_below.iter().map(|&j| x[j]).min().unwrap_or(u32::MAX),
        16 => u32::from(part.iter().any(|&j| x[j] > 50)),
        17 => part_below.iter().fold(0, |a, &j| a ^ x[j]),
        _ => return None,
    })
}

#[test]
fn subgroup_tree_runs() {
    let Some(words) = glsl::compile("subgroup_tree.comp", "tree-runs") else {
        return;
    };
    let container = glsl::translate(&words);
    let shader = glsl::to_spirv(&container);
    let Some(rt) = glsl::device() else { return };
    let w = glsl::run_u0(&rt, &shader, LANES * BLOCKS, "random-range:7:0:99");
    let s = w[18 * LANES] as usize;
    assert!(
        s.is_power_of_two() && s <= LANES,
        "subgroup size {s} (the shader's own report)"
    );
    let x = &w[..LANES];
    let mut wrong = Vec::new();
    for k in 1..18 {
        for i in 0..LANES {
            if let Some(e) = expected(x, s, i, k) {
                let got = w[k * LANES + i];
                if got != e {
                    wrong.push(format!(
                        "result {k} lane {i}: expected {e:#x}, got {got:#x}"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "subgroup size {s}:\n{}", wrong.join("\n"));
}
