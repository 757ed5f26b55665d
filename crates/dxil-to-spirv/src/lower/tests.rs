//! The D3D12 semantics the lowering promises (see the crate docs), checked by running hand-built modules on the
//! Vulkan device. Inputs come from buffers so that the device compiler cannot fold the operations under test.

use dxil_module::{BinOp, CastOp, InstKind};
use dxil_shader::ops::OpCode;

use crate::testutil::{Buf, TestModule, run};

fn raw(class: char, reg: u32, size: u64, init: Vec<u32>) -> Buf {
    Buf {
        class,
        reg,
        stride: None,
        size,
        init,
    }
}

/// Applies `f` to each input word (loaded from `t0`) and stores the results to `u0`; one thread.
fn map_words(
    inputs: &[u32],
    f: impl Fn(&mut TestModule, dxil_module::Value) -> dxil_module::Value,
) -> Option<Vec<u32>> {
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    for i in 0..inputs.len() as u32 {
        let x = t.load_word(src, i);
        let y = f(&mut t, x);
        t.store_word(dst, i, y);
    }
    let m = t.finish();
    let n = inputs.len() as u64 * 4;
    let out = run(
        &m,
        [1, 1, 1],
        &[
            raw('t', 0, n, inputs.to_vec()),
            raw('u', 0, n, vec![0xDEAD_BEEF; inputs.len()]),
        ],
    )?;
    Some(out.words("u0").to_vec())
}

#[test]
fn float_to_int_saturates_and_maps_nan_to_zero() {
    let inputs = [
        f32::NAN.to_bits(),
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        3.0e9f32.to_bits(),
        (-3.0e9f32).to_bits(),
        1.75f32.to_bits(),
        (-1.75f32).to_bits(),
        4_294_967_040.0f32.to_bits(),
        2_147_483_520.0f32.to_bits(),
    ];
    let signed = map_words(&inputs, |t, x| {
        let f = t.cast(CastOp::BitCast, t.f32, x);
        t.cast(CastOp::FPToSI, t.i32, f)
    });
    let unsigned = map_words(&inputs, |t, x| {
        let f = t.cast(CastOp::BitCast, t.f32, x);
        t.cast(CastOp::FPToUI, t.i32, f)
    });
    let (Some(signed), Some(unsigned)) = (signed, unsigned) else {
        return;
    };
    assert_eq!(
        signed,
        [
            0,
            i32::MAX as u32,
            i32::MIN as u32,
            i32::MAX as u32,
            i32::MIN as u32,
            1,
            (-1i32) as u32,
            i32::MAX as u32,
            2_147_483_520
        ]
    );
    assert_eq!(
        unsigned,
        [
            0,
            u32::MAX,
            0,
            3_000_000_000,
            0,
            1,
            0,
            4_294_967_040,
            2_147_483_520
        ]
    );
}

#[test]
fn integer_division_by_zero_and_overflow() {
    // Pairs (a, b) in consecutive words; results a/b, a%b for unsigned and signed.
    let pairs: [(u32, u32); 5] = [
        (7, 0),
        ((-7i32) as u32, 0),
        (i32::MIN as u32, (-1i32) as u32),
        ((-7i32) as u32, 2),
        (7, (-2i32) as u32),
    ];
    let inputs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let ops = [BinOp::UDiv, BinOp::URem, BinOp::SDiv, BinOp::SRem];
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let mut k = 0;
    for (p, _) in pairs.iter().enumerate() {
        let a = t.load_word(src, 2 * p as u32);
        let b = t.load_word(src, 2 * p as u32 + 1);
        for op in ops {
            let i32 = t.i32;
            let r = t.binary(op, i32, a, b);
            t.store_word(dst, k, r);
            k += 1;
        }
    }
    let m = t.finish();
    let Some(out) = run(
        &m,
        [1, 1, 1],
        &[
            raw('t', 0, 64, inputs),
            raw('u', 0, 4 * k as u64, vec![0; k as usize]),
        ],
    ) else {
        return;
    };
    let w = out.words("u0");
    let s = |x: i32| x as u32;
    assert_eq!(
        w,
        [
            // 7 / 0: all ones (udiv); signed: DXBC's expansion gives -1 for a non-negative dividend.
            u32::MAX,
            u32::MAX,
            s(-1),
            s(-1),
            // -7 / 0
            u32::MAX,
            u32::MAX,
            1,
            1,
            // INT_MIN / -1: wraps to INT_MIN, remainder 0.
            0,
            i32::MIN as u32,
            i32::MIN as u32,
            0,
            // -7 / 2: truncating division, remainder has the dividend's sign.
            0x7FFF_FFFC,
            1,
            s(-3),
            s(-1),
            // 7 / -2
            0,
            7,
            s(-3),
            1,
        ]
    );
}

#[test]
fn dynamic_shift_amounts_are_masked() {
    // Value, amount pairs.
    let inputs = [0x8000_0001u32, 33, 0x8000_0001, 36, 0x8000_0001, 31];
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let mut k = 0;
    for p in 0..3 {
        let v = t.load_word(src, 2 * p);
        let s = t.load_word(src, 2 * p + 1);
        for op in [BinOp::Shl, BinOp::LShr, BinOp::AShr] {
            let i32 = t.i32;
            let r = t.binary(op, i32, v, s);
            t.store_word(dst, k, r);
            k += 1;
        }
    }
    let m = t.finish();
    let Some(out) = run(
        &m,
        [1, 1, 1],
        &[
            raw('t', 0, 24, inputs.to_vec()),
            raw('u', 0, 36, vec![0; 9]),
        ],
    ) else {
        return;
    };
    assert_eq!(
        out.words("u0"),
        [
            2,
            0x4000_0000,
            0xC000_0000,
            0x10,
            0x0800_0000,
            0xF800_0000,
            0x8000_0000,
            1,
            u32::MAX
        ]
    );
}

#[test]
fn min_max_return_the_non_nan_operand_and_saturate_maps_nan_to_zero() {
    let inputs = [f32::NAN.to_bits(), 2.0f32.to_bits()];
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let nan = t.load_word(src, 0);
    let two = t.load_word(src, 1);
    let f32 = t.f32;
    let nan = t.cast(CastOp::BitCast, f32, nan);
    let two = t.cast(CastOp::BitCast, f32, two);
    let results = [
        t.dx_op("binary.f32", OpCode::FMax, f32, &[nan, two]),
        t.dx_op("binary.f32", OpCode::FMin, f32, &[two, nan]),
        t.dx_op("unary.f32", OpCode::Saturate, f32, &[nan]),
        t.dx_op("unary.f32", OpCode::Saturate, f32, &[two]),
    ];
    for (k, r) in results.into_iter().enumerate() {
        let i32 = t.i32;
        let bits = t.cast(CastOp::BitCast, i32, r);
        t.store_word(dst, k as u32, bits);
    }
    let m = t.finish();
    let Some(out) = run(
        &m,
        [1, 1, 1],
        &[raw('t', 0, 8, inputs.to_vec()), raw('u', 0, 16, vec![7; 4])],
    ) else {
        return;
    };
    assert_eq!(
        out.words("u0"),
        [2.0f32.to_bits(), 2.0f32.to_bits(), 0, 1.0f32.to_bits()]
    );
}

#[test]
fn firstbit_counts_from_the_top_and_bitfield_ops_clip() {
    let inputs = [0u32, 1, 0x8000_0000, u32::MAX, 0x0000_F000];
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let mut k = 0;
    for i in 0..inputs.len() as u32 {
        let x = t.load_word(src, i);
        for op in [OpCode::FirstbitLo, OpCode::FirstbitHi, OpCode::FirstbitSHi] {
            let i32 = t.i32;
            let r = t.dx_op("unaryBits.i32", op, i32, &[x]);
            t.store_word(dst, k, r);
            k += 1;
        }
    }
    // Ubfe/Ibfe(width 8, offset 28, 0xF000_0000 | x) clip at bit 31; Bfi(width 4, offset 30) clips too.
    let x = t.load_word(src, 3);
    let w8 = t.i32c(8);
    let o28 = t.i32c(28);
    let i32 = t.i32;
    let u = t.dx_op("tertiary.i32", OpCode::Ubfe, i32, &[w8, o28, x]);
    let s = t.dx_op("tertiary.i32", OpCode::Ibfe, i32, &[w8, o28, x]);
    let w4 = t.i32c(4);
    let o30 = t.i32c(30);
    let zero = t.load_word(src, 0);
    let b = t.dx_op("quaternary.i32", OpCode::Bfi, i32, &[w4, o30, x, zero]);
    for r in [u, s, b] {
        t.store_word(dst, k, r);
        k += 1;
    }
    let m = t.finish();
    let Some(out) = run(
        &m,
        [1, 1, 1],
        &[
            raw('t', 0, 20, inputs.to_vec()),
            raw('u', 0, 4 * 18, vec![0; 18]),
        ],
    ) else {
        return;
    };
    let n = u32::MAX;
    assert_eq!(
        out.words("u0"),
        [
            n,
            n,
            n, // 0: no bit
            0,
            31,
            31, // 1: lo 0; hi from the top: 31; signed: 31
            31,
            0,
            1, // 0x8000_0000: lo 31; hi 0; signed: the first bit unlike the sign is 1 from the top
            0,
            0,
            n, // all ones: lo 0, hi 0, signed: none
            12,
            16,
            16, // 0xF000
            0xF,
            u32::MAX,
            0xC000_0000,
        ]
    );
}

#[test]
fn raw_buffer_bounds_are_per_component() {
    // A 16-byte u0: a 4-word load and store at byte 8 touch words 2, 3 (in bounds) and 4, 5 (out of bounds).
    let mut t = TestModule::new([1, 1, 1], false);
    let buf = t.buffer(1, 0, 11, 0);
    let out = t.buffer(1, 1, 11, 0);
    let i32 = t.i32;
    let at8 = t.i32c(8);
    let u = t.undef(i32);
    let rr = t.raw_load(buf, i32, at8, u, 15, 4);
    for k in 0..4 {
        let c = t.extract(rr, i32, k);
        t.store_word(out, k, c);
    }
    let vals = [t.i32c(100), t.i32c(101), t.i32c(102), t.i32c(103)];
    t.raw_store(buf, i32, at8, u, vals, 15, 4);
    let m = t.finish();
    let Some(o) = run(
        &m,
        [1, 1, 1],
        &[
            raw('u', 0, 16, vec![10, 11, 12, 13]),
            raw('u', 1, 16, vec![9; 4]),
        ],
    ) else {
        return;
    };
    assert_eq!(o.words("u1"), [12, 13, 0, 0]);
    assert_eq!(o.words("u0"), [10, 11, 100, 101]);
}

#[test]
fn structured_buffer_bounds_are_per_element() {
    // Stride 8 in a 20-byte buffer: two whole elements. Element 2 (bytes 16..24) is out of bounds although its
    // first word exists.
    let mut t = TestModule::new([1, 1, 1], false);
    let buf = t.buffer(1, 0, 12, 8);
    let out = t.buffer(1, 1, 11, 0);
    let i32 = t.i32;
    let e1 = t.i32c(1);
    let e2 = t.i32c(2);
    let o0 = t.i32c(0);
    let a = t.raw_load(buf, i32, e1, o0, 3, 4);
    let b = t.raw_load(buf, i32, e2, o0, 3, 4);
    let a0 = t.extract(a, i32, 0);
    let b0 = t.extract(b, i32, 0);
    t.store_word(out, 0, a0);
    t.store_word(out, 1, b0);
    let v = t.i32c(77);
    let u = t.undef(i32);
    t.raw_store(buf, i32, e2, o0, [v, v, u, u], 3, 4);
    t.raw_store(buf, i32, e1, o0, [v, v, u, u], 3, 4);
    let m = t.finish();
    let Some(o) = run(
        &m,
        [1, 1, 1],
        &[
            Buf {
                class: 'u',
                reg: 0,
                stride: Some(8),
                size: 20,
                init: vec![1, 2, 3, 4, 5],
            },
            raw('u', 1, 8, vec![9, 9]),
        ],
    ) else {
        return;
    };
    assert_eq!(o.words("u1"), [3, 0]);
    assert_eq!(o.words("u0"), [1, 2, 77, 77, 5]);
}

#[test]
fn sixteen_bit_stores_keep_the_other_half() {
    // 64 threads each store their index as u16 at byte 2 * tid: neighbouring threads share every word.
    let mut t = TestModule::new([64, 1, 1], true);
    let buf = t.buffer(1, 0, 11, 0);
    let tid = t.thread_id(0);
    let i32 = t.i32;
    let i16 = t.i16;
    let two = t.i32c(2);
    let at = t.binary(BinOp::Mul, i32, tid, two);
    let v = t.cast(CastOp::Trunc, i16, tid);
    let u = t.undef(i32);
    let u16 = t.undef(i16);
    t.raw_store(buf, i16, at, u, [v, u16, u16, u16], 1, 2);
    let m = t.finish();
    let Some(o) = run(&m, [1, 1, 1], &[raw('u', 0, 128, vec![0xFFFF_FFFF; 32])]) else {
        return;
    };
    let want: Vec<u32> = (0..32u32).map(|i| (2 * i) | ((2 * i + 1) << 16)).collect();
    assert_eq!(o.words("u0"), want);
}

#[test]
fn out_of_bounds_atomics_do_nothing_and_return_zero() {
    let mut t = TestModule::new([1, 1, 1], false);
    let buf = t.buffer(1, 0, 11, 0);
    let out = t.buffer(1, 1, 11, 0);
    let i32 = t.i32;
    let add = t.i32c(0);
    let u = t.undef(i32);
    let five = t.i32c(5);
    let at4 = t.i32c(4);
    let at8 = t.i32c(8);
    let r_in = t.dx_op(
        "atomicBinOp.i32",
        OpCode::AtomicBinOp,
        i32,
        &[buf.handle, add, at4, u, u, five],
    );
    let r_out = t.dx_op(
        "atomicBinOp.i32",
        OpCode::AtomicBinOp,
        i32,
        &[buf.handle, add, at8, u, u, five],
    );
    t.store_word(out, 0, r_in);
    t.store_word(out, 1, r_out);
    let m = t.finish();
    let Some(o) = run(
        &m,
        [1, 1, 1],
        &[raw('u', 0, 8, vec![1, 2]), raw('u', 1, 8, vec![9, 9])],
    ) else {
        return;
    };
    assert_eq!(o.words("u1"), [2, 0]);
    assert_eq!(o.words("u0"), [1, 7]);
}

#[test]
fn control_flow_with_phis_runs() {
    // for (i = 0, s = 0; i < n; i++) s += i;  with n from the input buffer.
    let mut t = TestModule::new([1, 1, 1], false);
    let src = t.buffer(0, 0, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let n = t.load_word(src, 0);
    let i32 = t.i32;
    let i1 = t.i1;
    let header = dxil_module::BlockId(1);
    let exit = dxil_module::BlockId(2);
    t.end_block(InstKind::Br { dest: header });
    // Block 1: phis, body, back edge.
    let phi_i = t.inst(
        InstKind::Phi {
            incoming: dxil_module::PoolRange::EMPTY,
        },
        i32,
    );
    let phi_s = t.inst(
        InstKind::Phi {
            incoming: dxil_module::PoolRange::EMPTY,
        },
        i32,
    );
    let s2 = t.binary(BinOp::Add, i32, phi_s, phi_i);
    let one = t.i32c(1);
    let i2 = t.binary(BinOp::Add, i32, phi_i, one);
    let c = t.inst(
        InstKind::Cmp {
            pred: dxil_module::Predicate::ICMP_ULT,
            lhs: i2,
            rhs: n,
            flags: 0,
        },
        i1,
    );
    t.end_block(InstKind::CondBr {
        cond: c,
        if_true: header,
        if_false: exit,
    });
    t.store_word(dst, 0, s2);
    let zero = t.i32c(0);
    // Fill in the phis now that the values exist.
    let inc_i = dxil_module::PoolRange::push(&mut t.body.pool, &[zero.0, 0, i2.0, 1]);
    let inc_s = dxil_module::PoolRange::push(&mut t.body.pool, &[zero.0, 0, s2.0, 1]);
    for (phi, inc) in [(phi_i, inc_i), (phi_s, inc_s)] {
        if let Some(d) = phi.as_inst().and_then(|i| t.body.insts.get_mut(i.index())) {
            d.kind = InstKind::Phi { incoming: inc };
        }
    }
    let m = t.finish();
    let Some(o) = run(
        &m,
        [1, 1, 1],
        &[raw('t', 0, 4, vec![10]), raw('u', 0, 4, vec![0])],
    ) else {
        return;
    };
    assert_eq!(o.words("u0"), [45]);
}

#[test]
fn sample_positions_of_a_multisampled_texture_validate() {
    // Texture2DMS<float4> t0; u0[0..2] = asuint(t0.GetSamplePosition(index from t1)).
    let mut t = TestModule::new([1, 1, 1], false);
    let tex = t.resource(0, 0, 3, 0, 9);
    let src = t.buffer(0, 1, 11, 0);
    let dst = t.buffer(1, 0, 11, 0);
    let index = t.load_word(src, 0);
    let f32 = t.f32;
    let sp = t.dx_struct2("SamplePos", f32);
    let pos = t.dx_op(
        "texture2DMSGetSamplePosition",
        OpCode::Texture2DMSGetSamplePosition,
        sp,
        &[tex.handle, index],
    );
    for k in 0..2 {
        let c = t.extract(pos, f32, k);
        let i32 = t.i32;
        let bits = t.cast(CastOp::BitCast, i32, c);
        t.store_word(dst, k, bits);
    }
    let m = t.finish();
    let tr = crate::translate(&m, &crate::Options::default()).unwrap();
    crate::testutil::validate(&tr.words, tr.vulkan_version);
    let text = crate::disassemble(&tr.words).unwrap();
    assert!(text.contains("OpImageQuerySamples"), "{text}");
}

#[test]
fn wave_match_and_multi_prefix_partition_lanes() {
    // m = WaveMatch(tid % 3); u0[6 * tid ..] = { m.x, WaveGetLaneIndex(), WaveGetLaneCount(),
    // WaveMultiPrefixSum(tid, m), WaveMultiPrefixCountBits(tid & 1, m) }; 64 threads.
    let mut t = TestModule::new([64, 1, 1], false);
    let dst = t.buffer(1, 0, 11, 0);
    let (i1, i8, i32) = (t.i1, t.i8, t.i32);
    let tid = t.thread_id(0);
    let three = t.i32c(3);
    let key = t.binary(BinOp::URem, i32, tid, three);
    let four = t.m.types.push(dxil_module::TypeData::Struct {
        name: Some("dx.types.fouri32".into()),
        packed: false,
        opaque: false,
        elems: vec![i32; 4],
    });
    let matched = t.dx_op("waveMatch.i32", OpCode::WaveMatch, four, &[key]);
    let m: Vec<_> = (0..4).map(|k| t.extract(matched, i32, k)).collect();
    let lane = t.dx_op("waveGetLaneIndex", OpCode::WaveGetLaneIndex, i32, &[]);
    let count = t.dx_op("waveGetLaneCount", OpCode::WaveGetLaneCount, i32, &[]);
    let (sum, unsigned) = (t.int(i8, 0), t.int(i8, 1));
    let prefix = t.dx_op(
        "waveMultiPrefixOp.i32",
        OpCode::WaveMultiPrefixOp,
        i32,
        &[tid, m[0], m[1], m[2], m[3], sum, unsigned],
    );
    let one = t.i32c(1);
    let low = t.binary(BinOp::And, i32, tid, one);
    let odd = t.cast(CastOp::Trunc, i1, low);
    let bits = t.dx_op(
        "waveMultiPrefixBitCount",
        OpCode::WaveMultiPrefixBitCount,
        i32,
        &[odd, m[0], m[1], m[2], m[3]],
    );
    let stride = t.i32c(24);
    let at = t.binary(BinOp::Mul, i32, tid, stride);
    let u = t.undef(i32);
    t.raw_store(dst, i32, at, u, [m[0], lane, count, prefix], 15, 4);
    let sixteen = t.i32c(16);
    let at2 = t.binary(BinOp::Add, i32, at, sixteen);
    t.raw_store(dst, i32, at2, u, [bits, u, u, u], 1, 4);
    let module = t.finish();

    // Each partition's ballot and scan must run inside the loop: at the loop's merge the lanes of all
    // partitions have reconverged on devices that reconverge there (NVIDIA), and a ballot would see every lane.
    // Lavapipe runs either placement the same, so this is checked on the module's text too.
    let tr = crate::translate(&module, &crate::Options::default()).unwrap();
    let text = crate::disassemble(&tr.words).unwrap();
    if std::env::var_os("DUMP_WAVE").is_some() {
        eprintln!("{text}");
    }
    let lines: Vec<&str> = text.lines().collect();
    let label = |id: &str| {
        lines
            .iter()
            .position(|l| l.trim() == format!("{id} = OpLabel"))
            .expect("a block")
    };
    let mut loops = 0;
    for (k, l) in lines.iter().enumerate() {
        let Some(rest) = l.trim().strip_prefix("OpLoopMerge ") else {
            continue;
        };
        loops += 1;
        let merge = label(rest.split_whitespace().next().expect("merge id"));
        let inside = &lines[k..merge];
        assert!(
            inside
                .iter()
                .any(|l| l.contains("OpGroupNonUniformBallot")
                    || l.contains("OpGroupNonUniformIAdd")),
            "the partition's operation is outside loop {loops}:\n{text}"
        );
    }
    assert_eq!(loops, 3, "{text}");

    let Some(o) = run(&module, [1, 1, 1], &[raw('u', 0, 64 * 24, vec![0; 64 * 6])]) else {
        return;
    };
    let w = o.words("u0");
    let count = w[2];
    assert!(count.is_power_of_two() && count <= 128, "wave size {count}");
    for tid in 0..64u32 {
        let r = &w[6 * tid as usize..6 * tid as usize + 5];
        assert_eq!(r[1], tid % count, "lanes are laid out linearly");
        let first = tid / count * count;
        let same: Vec<u32> = (first..first + count)
            .filter(|&o| o % 3 == tid % 3)
            .collect();
        // `.x` holds lanes 0..32.
        let mask = same
            .iter()
            .filter(|&&o| o - first < 32)
            .fold(0u32, |m, &o| m | 1 << (o - first));
        assert_eq!(r[0], mask, "WaveMatch, thread {tid}");
        let below = same.iter().filter(|&&o| o < tid);
        assert_eq!(r[3], below.clone().sum::<u32>(), "prefix sum, thread {tid}");
        let odd = below.filter(|&&o| o & 1 == 1).count() as u32;
        assert_eq!(r[4], odd, "prefix count, thread {tid}");
    }
}
