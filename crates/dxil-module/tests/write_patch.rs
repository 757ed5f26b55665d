//! Patchable specialization constants: own module-level slot, forced 5-chunk VBR8, bit offset
//! reported, and rewritable in place without disturbing anything else.

mod write_support;

use dxil_bitstream::BitstreamReader;
use dxil_module::constants::{ConstData, Constant};
use dxil_module::types::TypeData;
use dxil_module::{
    ConstId, InstKind, Module, PatchSite, Value, ValueRef, WriteErrorKind, WriteOptions,
    patch_constant, read_module, write_module, write_module_with_sites,
};

/// A corpus module and an i32 constant that its first function passes as a non-opcode call
/// argument (something a specialization constant would stand for).
fn module_with_argument_constant() -> Option<(Module, ConstId)> {
    let programs = write_support::corpus_programs()?;
    for (_, bitcode) in &programs {
        let m = read_module(bitcode, 0).unwrap();
        for f in &m.functions {
            let Some(b) = &f.body else { continue };
            for inst in &b.insts {
                let InstKind::Call { args, .. } = &inst.kind else {
                    continue;
                };
                for &a in b.raw(*args).iter().skip(1) {
                    if let ValueRef::Const(c) = Value(a).get()
                        && let Some(k) = m.constants.get(c)
                        && matches!(k.data, ConstData::Int(v) if v > 1000)
                        && m.types.get(k.ty) == Some(&TypeData::Int(32))
                    {
                        return Some((m, c));
                    }
                }
            }
        }
    }
    panic!("no corpus module passes a large i32 constant to a call");
}

/// Reads the VBR8 at `site` back, checking it has exactly 5 chunks.
fn read_site(bitcode: &[u8], site: &PatchSite) -> u64 {
    let mut value = 0u64;
    for chunk in 0..5u64 {
        let mut bits = 0u64;
        for b in 0..8 {
            let pos = site.bit_offset + chunk * 8 + b;
            let byte = bitcode[(pos / 8) as usize];
            bits |= u64::from((byte >> (pos % 8)) & 1) << b;
        }
        assert_eq!(
            bits & 0x80 != 0,
            chunk < 4,
            "chunk {chunk} continuation bit"
        );
        value |= (bits & 0x7F) << (7 * chunk);
    }
    value
}

#[test]
fn patchable_constant_is_written_long_and_patches_in_place() {
    // In the module's constants block, in the function's, and in a block of its own just
    // before its first use.
    let sites: Vec<Option<u64>> = [(false, false), (true, false), (true, true)]
        .into_iter()
        .map(|(in_functions, late)| patches_in_place(in_functions, late, false))
        .collect();
    // Compact bodies change no constants block: the site moves only by the BLOCKINFO
    // abbreviations they add.
    patches_in_place(true, true, true);
    if let [Some(module), Some(function), Some(late)] = sites[..] {
        assert!(
            module < function && function < late,
            "each placement puts the site later: {sites:?}"
        );
    }
}

/// Returns the site's bit offset.
fn patches_in_place(in_functions: bool, late: bool, compact: bool) -> Option<u64> {
    let (m, c) = module_with_argument_constant()?;
    let opts = WriteOptions {
        patchable_constants: vec![c],
        patchable_in_functions: in_functions,
        patchable_late: late,
        compact_bodies: compact,
    };
    let out = write_module_with_sites(&m, &opts).unwrap();
    assert_eq!(out.patch_sites.len(), 1);
    let site = out.patch_sites[0];
    assert_eq!(site.constant, c);
    let old = match m.constants.get(c).unwrap().data {
        ConstData::Int(v) => v,
        _ => unreachable!(),
    };
    assert_eq!(read_site(&out.bitcode, &site), (old as u64) << 1);

    // Same meaning as the original module.
    let back = read_module(&out.bitcode, 0).unwrap();
    assert_eq!(write_support::dump(&back), write_support::dump(&m));

    // Patch to Godot's sentinel pattern and to a negative value; only that constant changes.
    for new in [0x4567_8900_i64, -5, 0] {
        let mut patched = out.bitcode.clone();
        patch_constant(&mut patched, &site, new).unwrap();
        assert_eq!(patched.len(), out.bitcode.len());
        BitstreamReader::new(&patched, 0).unwrap();
        let back = read_module(&patched, 0).unwrap();
        let mut expected = m.clone();
        let ty = expected.constants.get(c).unwrap().ty;
        expected.constants.set(
            c,
            Constant {
                ty,
                data: if new == 0 {
                    ConstData::Null
                } else {
                    ConstData::Int(new)
                },
            },
        );
        let (a, b) = (write_support::dump(&back), write_support::dump(&expected));
        // The patched module reads an INTEGER 0 as `Int(0)`; compare with that spelling.
        let b = if new == 0 {
            b.replace("i32 null", "i32 0")
        } else {
            b
        };
        let a = if new == 0 {
            a.replace("i32 null", "i32 0")
        } else {
            a
        };
        assert_eq!(a, b, "patched to {new}");
    }

    // A value whose rotation needs more than 35 bits does not fit.
    let mut patched = out.bitcode.clone();
    assert!(patch_constant(&mut patched, &site, 1 << 40).is_err());
    assert_eq!(
        patched, out.bitcode,
        "a refused patch leaves the bits alone"
    );
    Some(site.bit_offset)
}

#[test]
fn zero_and_equal_constants_keep_their_own_slot() {
    let Some((mut m, c)) = module_with_argument_constant() else {
        return;
    };
    // A second constant with the same value, and a zero: both patchable, neither merged.
    let ty = m.constants.get(c).unwrap().ty;
    let data = m.constants.get(c).unwrap().data.clone();
    let twin = m.constants.push(Constant { ty, data });
    let zero = m.constants.push(Constant {
        ty,
        data: ConstData::Null,
    });
    let opts = WriteOptions {
        patchable_constants: vec![c, twin, zero],
        ..Default::default()
    };
    let out = write_module_with_sites(&m, &opts).unwrap();
    assert_eq!(out.patch_sites.len(), 3);
    let mut offsets: Vec<u64> = out.patch_sites.iter().map(|s| s.bit_offset).collect();
    offsets.dedup();
    assert_eq!(offsets.len(), 3, "each has its own record");
    let z = out.patch_sites.iter().find(|s| s.constant == zero).unwrap();
    assert_eq!(
        read_site(&out.bitcode, z),
        0,
        "zero is an INTEGER record, not NULL"
    );
    let back = read_module(&out.bitcode, 0).unwrap();
    assert_eq!(write_support::dump(&back), write_support::dump(&m));
}

#[test]
fn patchable_constants_are_checked() {
    let Some((mut m, _)) = module_with_argument_constant() else {
        return;
    };
    let missing = WriteOptions {
        patchable_constants: vec![ConstId(u32::MAX - 5)],
        ..Default::default()
    };
    assert_eq!(
        write_module(&m, &missing).unwrap_err().kind(),
        WriteErrorKind::InvalidId
    );
    let float = m
        .types
        .iter()
        .find(|(_, d)| **d == TypeData::Float)
        .map(|(t, _)| t);
    let float = float.unwrap_or_else(|| m.types.push(TypeData::Float));
    let f = m.constants.push(Constant {
        ty: float,
        data: ConstData::Float(0x3F80_0000),
    });
    for (patchable_in_functions, patchable_late) in [(false, false), (true, false), (true, true)] {
        let opts = WriteOptions {
            patchable_constants: vec![f],
            patchable_in_functions,
            patchable_late,
            compact_bodies: false,
        };
        assert_eq!(
            write_module(&m, &opts).unwrap_err().kind(),
            WriteErrorKind::TypeMismatch
        );
    }
}
