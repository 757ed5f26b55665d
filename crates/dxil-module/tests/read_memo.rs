//! The reader keeps per-thread state between modules (buffers, and what it decoded of blocks
//! every DXC module repeats: BLOCKINFO, the metadata kind table). A module must read the same
//! whatever was read before it on the thread: every corpus module, read after the others on
//! one thread, equals the module read on a fresh thread; so does a module read into the storage of
//! recycled ones.

use std::path::PathBuf;

fn corpus_bitcodes() -> Vec<(PathBuf, Vec<u8>, u64)> {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return Vec::new();
    };
    let files = dxil_corpus::containers(&dir);
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(c) = dxil_container::Container::parse(&bytes) else {
            continue;
        };
        let Some(Ok(p)) = c.program() else { continue };
        let (bc, at) = (
            p.bitcode.to_vec(),
            p.bitcode_byte_offset_in_container as u64,
        );
        out.push((f, bc, at));
    }
    out
}

/// The whole module as text: `Module` has no `PartialEq`, its parts derive `Debug`.
fn fingerprint(bc: &[u8], at: u64) -> String {
    match dxil_module::read_module(bc, at) {
        Ok(m) => format!("{m:?}"),
        Err(e) => format!("error: {e}"),
    }
}

/// Panics unless `warm` is how the module reads on a fresh thread.
fn assert_same_as_fresh(path: &std::path::Path, bc: &[u8], at: u64, warm: &str, how: &str) {
    let bc = bc.to_vec();
    let cold = std::thread::spawn(move || fingerprint(&bc, at))
        .join()
        .unwrap();
    assert!(warm == cold, "{} reads differently {how}", path.display());
}

#[test]
fn modules_read_the_same_after_other_modules() {
    let all = corpus_bitcodes();
    if all.is_empty() {
        return;
    }
    // Every 7th module on fresh threads (cold), all of them in turn on this one (warm),
    // interleaved with damaged copies that fail part way and must not leave bad state behind.
    let step = if cfg!(debug_assertions) { 29 } else { 7 };
    let mut checked = 0;
    for (i, (path, bc, at)) in all.iter().enumerate() {
        if i % 3 == 0 {
            let cut = &bc[..bc.len() * 2 / 3 / 4 * 4];
            let _ = dxil_module::read_module(cut, *at);
        }
        let warm = fingerprint(bc, *at);
        if i % step == 0 {
            assert_same_as_fresh(path, bc, *at, &warm, "after other modules");
            checked += 1;
        }
    }
    assert!(checked > 0);
    eprintln!("{checked} modules compared cold and warm");
}

/// A module read into the storage of recycled ones (`dxil_module::recycle`: arenas, names, type
/// lists, attribute groups and function bodies of the modules before it) equals the module read
/// on a fresh thread; so does every module after a damaged one that failed part way.
#[test]
fn modules_read_the_same_from_recycled_storage() {
    let all = corpus_bitcodes();
    if all.is_empty() {
        return;
    }
    // Every module in release (about a second): the recycled storage is what every module read
    // through the C API starts from.
    let step = if cfg!(debug_assertions) { 29 } else { 1 };
    let mut checked = 0;
    for (i, (path, bc, at)) in all.iter().enumerate() {
        if i % 5 == 0 {
            let cut = &bc[..bc.len() * 2 / 3 / 4 * 4];
            let _ = dxil_module::read_module(cut, *at);
        }
        let warm = match dxil_module::read_module(bc, *at) {
            Ok(m) => {
                let text = format!("{m:?}");
                dxil_module::recycle(m);
                text
            }
            Err(e) => format!("error: {e}"),
        };
        if i % step == 0 {
            assert_same_as_fresh(path, bc, *at, &warm, "from recycled storage");
            checked += 1;
        }
    }
    assert!(checked > 0);
    eprintln!("{checked} modules compared fresh and from recycled storage");
}
