//! The structurizer on the real CFGs of the corpus: every function of every DXC listing (`X.ll`) is reduced to
//! its block terminators, structurized, checked (output rules, equivalence under random branch decisions, phi
//! contract) and, batched into modules, run through spirv-val.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus` relative to the repository root; without it the test fails when
//! `CI` is set and is skipped with a message otherwise.

use dxil_to_spirv::cfg::{BlockId, Cfg, Merge, Structurizer, Terminator};
use std::collections::HashMap;

mod structurize_support;
use structurize_support::*;

/// A function's terminators, with block names still unresolved.
#[derive(Default)]
struct RawFn {
    name: String,
    blocks: Vec<String>,
    terms: Vec<RawTerm>,
}

enum RawTerm {
    None,
    Ret,
    Unreachable,
    Br(String),
    CondBr(String, String),
    Switch(String, Vec<(u64, String)>),
}

fn label_after(s: &str) -> Option<String> {
    let i = s.find("label %")?;
    let rest = &s[i + 7..];
    let end = rest.find([',', ' ', ']']).unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

fn labels(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("label %") {
        rest = &rest[i..];
        if let Some(l) = label_after(rest) {
            out.push(l);
        }
        rest = &rest[7..];
    }
    out
}

/// Parse the functions of an LLVM 3.7 text listing (only what the CFG needs).
fn parse_listing(text: &str) -> Result<Vec<RawFn>, String> {
    let mut fns = Vec::new();
    let mut cur: Option<RawFn> = None;
    let mut in_switch = false;
    for (ln, line) in text.lines().enumerate() {
        if let Some(f) = cur.as_mut() {
            if line == "}" {
                fns.push(cur.take().unwrap());
                continue;
            }
            if in_switch {
                let t = line.trim();
                if t.starts_with(']') {
                    in_switch = false;
                    continue;
                }
                let lit = t
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .trim_end_matches(',');
                let lit: i64 = lit
                    .parse()
                    .map_err(|_| format!("line {}: bad case {t:?}", ln + 1))?;
                let target =
                    label_after(t).ok_or(format!("line {}: case without label", ln + 1))?;
                if let Some(RawTerm::Switch(_, cases)) = f.terms.last_mut() {
                    cases.push((lit as u32 as u64, target));
                }
                continue;
            }
            let new_block = if let Some(rest) = line.strip_prefix("; <label>:") {
                Some(rest.split_whitespace().next().unwrap_or("").to_string())
            } else if !line.starts_with(' ')
                && !line.starts_with(';')
                && line.contains(':')
                && !line.is_empty()
            {
                Some(line.split(':').next().unwrap_or("").to_string())
            } else {
                None
            };
            if let Some(name) = new_block {
                f.blocks.push(name);
                f.terms.push(RawTerm::None);
                continue;
            }
            let t = line.trim_start();
            if t.is_empty() || t.starts_with(';') {
                continue;
            }
            if f.blocks.is_empty() {
                f.blocks.push("<entry>".into());
                f.terms.push(RawTerm::None);
            }
            let term = if t.starts_with("br ") {
                let l = labels(t);
                match l.len() {
                    1 => RawTerm::Br(l[0].clone()),
                    2 => RawTerm::CondBr(l[0].clone(), l[1].clone()),
                    _ => return Err(format!("line {}: odd br {t:?}", ln + 1)),
                }
            } else if t.starts_with("switch ") {
                let default =
                    label_after(t).ok_or(format!("line {}: switch without default", ln + 1))?;
                in_switch = !t.ends_with("]");
                RawTerm::Switch(default, Vec::new())
            } else if t.starts_with("ret") {
                RawTerm::Ret
            } else if t.starts_with("unreachable") {
                RawTerm::Unreachable
            } else {
                continue;
            };
            if let Some(last) = f.terms.last_mut() {
                *last = term;
            }
        } else if line.starts_with("define ") && line.ends_with('{') {
            let name = line
                .split('@')
                .nth(1)
                .and_then(|s| s.split('(').next())
                .unwrap_or("?")
                .to_string();
            cur = Some(RawFn {
                name,
                ..Default::default()
            });
        }
    }
    Ok(fns)
}

fn to_cfg(f: &RawFn, cfg: &mut Cfg) -> Result<(), String> {
    let ids: HashMap<&str, u32> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.as_str(), i as u32))
        .collect();
    let id = |n: &String| {
        ids.get(n.as_str())
            .copied()
            .map(BlockId)
            .ok_or(format!("unknown label %{n}"))
    };
    cfg.clear();
    for t in &f.terms {
        match t {
            RawTerm::None => return Err("block without terminator".into()),
            RawTerm::Ret => {
                cfg.push(Terminator::Return);
            }
            RawTerm::Unreachable => {
                cfg.push(Terminator::Unreachable);
            }
            RawTerm::Br(a) => {
                cfg.push(Terminator::Branch(id(a)?));
            }
            RawTerm::CondBr(a, b) => {
                cfg.push(Terminator::CondBranch {
                    t: id(a)?,
                    f: id(b)?,
                });
            }
            RawTerm::Switch(d, cases) => {
                let cases: Result<Vec<(u64, BlockId)>, String> =
                    cases.iter().map(|(l, t)| Ok((*l, id(t)?))).collect();
                cfg.push_switch(id(d)?, cases?);
            }
        }
    }
    Ok(())
}

#[test]
fn corpus_cfgs_structurize_and_validate() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::listings(&dir);
    assert!(!files.is_empty(), "no .ll listings under {}", dir.display());
    let validate = spv::available();
    let mut st = Structurizer::new();
    let mut cfg = Cfg::new();
    let (mut functions, mut blocks, mut max_blocks, mut loops, mut flagged) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut module = spv::Module::new();
    let mut batch: Vec<String> = Vec::new();
    let mut validated = 0usize;
    let t0 = std::time::Instant::now();
    let flush = |module: &mut spv::Module, batch: &mut Vec<String>, validated: &mut usize| {
        if batch.is_empty() {
            return;
        }
        let m = std::mem::replace(module, spv::Module::new());
        if let Some(Err(e)) = spv::validate(&m.words(), "corpus") {
            panic!("spirv-val rejected a module built from {batch:?}: {e}");
        }
        *validated += batch.len();
        batch.clear();
    };
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let fns = parse_listing(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for f in &fns {
            to_cfg(f, &mut cfg).unwrap_or_else(|e| panic!("{} @{}: {e}", file.display(), f.name));
            let tag = format!("{} @{}", file.display(), f.name);
            check_cfg(&mut st, &cfg, 8).unwrap_or_else(|e| panic!("{tag}: {e}"));
            let s = st.run(&cfg).unwrap();
            functions += 1;
            blocks += cfg.len();
            max_blocks = max_blocks.max(cfg.len());
            loops += s
                .blocks()
                .iter()
                .filter(|b| matches!(b.merge, Merge::Loop { .. }))
                .count();
            flagged += usize::from(s.uses_flag());
            if s.uses_flag() && std::env::var_os("SHOW_FLAGGED").is_some() {
                eprintln!("{tag}:\n{}", dump(&s, &cfg));
            }
            if validate {
                module.add(&s, &cfg);
                batch.push(tag);
                if batch.len() >= 200 {
                    flush(&mut module, &mut batch, &mut validated);
                }
            }
        }
    }
    if validate {
        flush(&mut module, &mut batch, &mut validated);
    }
    eprintln!(
        "corpus: {} listings, {functions} functions, {blocks} blocks (largest {max_blocks}), {loops} loops, \
         {flagged} functions needing the flag; {validated} validated by spirv-val; {:?}",
        files.len(),
        t0.elapsed()
    );
    assert!(functions >= files.len());
}
