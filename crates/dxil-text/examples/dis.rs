//! `dis FILE.dxil`: prints the container's module. `dis --bench DIR`: reads and prints every
//! container under DIR and reports the time spent. `dis --write OUT DIR`: writes every listing
//! to OUT.

use std::path::{Path, PathBuf};
use std::time::Instant;

use dxil_container::{Container, FourCC};

fn bitcode(bytes: &[u8]) -> Result<(Vec<u8>, u64), String> {
    let c = Container::parse(bytes).map_err(|e| e.to_string())?;
    let p = c
        .program_part(FourCC::ILDB)
        .or_else(|| c.program())
        .ok_or("no DXIL part")?
        .map_err(|e| e.to_string())?;
    Ok((
        p.bitcode.to_vec(),
        p.bitcode_byte_offset_in_container as u64,
    ))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "dxil") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bench") {
        let mut files = Vec::new();
        for a in &args[1..] {
            walk(Path::new(a), &mut files);
        }
        let inputs: Vec<(Vec<u8>, u64)> = files
            .iter()
            .filter_map(|f| bitcode(&std::fs::read(f).ok()?).ok())
            .collect();
        let rounds: u32 = std::env::var("DIS_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(10);
        let t = Instant::now();
        let mut modules = Vec::new();
        for _ in 0..rounds {
            modules = inputs
                .iter()
                .map(|(bc, off)| dxil_module::read_module(bc, *off).expect("read"))
                .collect();
        }
        let read = t.elapsed() / rounds;
        let print_rounds: u32 = std::env::var("DIS_PRINT_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(rounds);
        let t = Instant::now();
        let mut bytes = 0usize;
        let mut text = String::new();
        for _ in 0..print_rounds {
            for m in &modules {
                text.clear();
                dxil_text::print_module(m, &mut text).expect("print");
                bytes += text.len();
            }
        }
        let print = t.elapsed() / print_rounds;
        let n = inputs.len() as u32;
        println!(
            "{} modules: read {read:.2?} ({:.2?}/module), print {print:.2?} ({:.2?}/module, {:.0} MB/s)",
            inputs.len(),
            read / n,
            print / n,
            bytes as f64 / print_rounds as f64 / print.as_secs_f64() / 1e6
        );
        return;
    }
    if args.first().map(String::as_str) == Some("--write") {
        // `dis --write OUT DIR...`: every container under DIR to OUT/<n>.ll, like `llvm-dis *.bc`.
        let out = PathBuf::from(&args[1]);
        let mut files = Vec::new();
        for a in &args[2..] {
            walk(Path::new(a), &mut files);
        }
        for (i, f) in files.iter().enumerate() {
            let Ok((bc, off)) = bitcode(&std::fs::read(f).expect("read file")) else {
                continue;
            };
            let m = dxil_module::read_module(&bc, off).expect("module");
            let mut file = std::fs::File::create(out.join(format!("{i}.ll"))).expect("create");
            dxil_text::write_module(&m, &dxil_text::PrintOptions::default(), &mut file)
                .expect("write");
        }
        return;
    }
    for a in &args {
        let bytes = std::fs::read(a).expect("read file");
        let (bc, off) = bitcode(&bytes).expect("container");
        let m = dxil_module::read_module(&bc, off).expect("module");
        print!("{}", dxil_text::module_to_string(&m));
    }
}
