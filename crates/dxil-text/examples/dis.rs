//! `dis FILE...`: prints each container's (or raw bitcode file's) module.
//! `dis FILE -o OUT`: writes the listing to OUT, like `llvm-dis FILE -o OUT`.
//! `dis --bench DIR...`: reads and prints every container under DIR and reports the time spent.
//! `dis --write OUT DIR...`: writes every listing to OUT.
//! `dis --compare DIR...`: `dis` side by side with `llvm-dis-14` over the same bitcode (see
//! [`compare`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dxil_container::{Container, FourCC};

/// The bitcode of a container (its DXIL or ILDB part) or of a raw bitcode file, and its byte
/// offset in the file.
fn bitcode(bytes: &[u8]) -> Result<(&[u8], u64), String> {
    if bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&0x0B17_C0DEu32.to_le_bytes()) {
        return Ok((bytes, 0));
    }
    let c = Container::parse(bytes).map_err(|e| e.to_string())?;
    let p = c
        .program_part(FourCC::ILDB)
        .or_else(|| c.program())
        .ok_or("no DXIL part")?
        .map_err(|e| e.to_string())?;
    Ok((p.bitcode, p.bitcode_byte_offset_in_container as u64))
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

/// Time spent in each part of [`dis_file`].
#[derive(Default, Clone, Copy)]
struct Split {
    read: Duration,
    print: Duration,
    io: Duration,
}

/// Reads, disassembles and writes one file: what one `llvm-dis IN -o OUT` does.
fn dis_file(
    input: &Path,
    output: &Path,
    buf: &mut Buffers,
    split: &mut Split,
) -> Result<usize, String> {
    let t0 = Instant::now();
    let len = read_file(input, &mut buf.input).map_err(|e| format!("{}: {e}", input.display()))?;
    let t1 = Instant::now();
    let (bc, off) = bitcode(buf.input.get(..len).unwrap_or_default())?;
    let m = dxil_module::read_module(bc, off).map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    buf.text.clear();
    dxil_text::print_module(&m, &mut buf.text).map_err(|e| e.to_string())?;
    let t3 = Instant::now();
    drop(m);
    let t4 = Instant::now();
    std::fs::write(output, buf.text.as_bytes())
        .map_err(|e| format!("{}: {e}", output.display()))?;
    split.io += t1 - t0 + t4.elapsed();
    split.read += t2 - t1 + (t4 - t3);
    split.print += t3 - t2;
    Ok(buf.text.len())
}

/// Buffers [`dis_file`] reuses from file to file.
#[derive(Default)]
struct Buffers {
    input: Vec<u8>,
    text: String,
}

/// Reads a whole file into the start of `buf` and returns its length: open, read to the end,
/// close, without asking for the file's size first. `buf` only grows, so it is zeroed once.
fn read_file(path: &Path, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut filled = 0;
    loop {
        if buf.len() == filled {
            buf.resize((filled * 2).max(64 * 1024), 0);
        }
        let n = f.read(buf.get_mut(filled..).unwrap_or_default())?;
        if n == 0 {
            return Ok(filled);
        }
        filled += n;
    }
}

/// CPU seconds (user + system) of this process and of its waited-for children, from
/// `/proc/self/stat` (clock ticks of 1/100 s, the Linux value of `CLK_TCK`).
fn cpu_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime is field 14 (index 11 here).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let get = |i: usize| f.get(i).copied().unwrap_or(0.0) / 100.0;
    (get(11) + get(12), get(13) + get(14))
}

/// Wall time and CPU time (own, children) of `f`.
fn measure(f: impl FnOnce()) -> (Duration, f64, f64) {
    let (own0, kids0) = cpu_times();
    let t = Instant::now();
    f();
    let wall = t.elapsed();
    let (own1, kids1) = cpu_times();
    (wall, own1 - own0, kids1 - kids0)
}

/// `dis --compare DIR...`: every container under DIR that has a DXIL part is disassembled
/// (read, printed, written to a `.ll` file) by `llvm-dis-14` and by this crate, side by side:
///
/// 1. the bitcode is extracted once to `DIR/dis-compare-PID/N.bc` (not timed), where DIR is
///    `$DIS_COMPARE_DIR`, else `/dev/shm` when present, else the temporary directory;
/// 2. single process: one `llvm-dis-14` over all `.bc` files, against one loop in this
///    process over the same `.bc` files and over the `.dxil` containers;
/// 3. one process per file: `llvm-dis-14 N.bc -o N.ll` against `dis N.bc -o N.ll` (this
///    example's own binary), for every file or every `DIS_COMPARE_STEP`-th.
///
/// Every run reads its inputs from files and writes one `.ll` file per module, as `llvm-dis`
/// does. Single-process runs are repeated `DIS_COMPARE_ROUNDS` times (default 3), alternating the
/// tools, and the fastest wall time of each counts (the machine may be shared). CPU times are
/// reported alongside.
fn compare(dirs: &[String]) {
    let mut files = Vec::new();
    for a in dirs {
        walk(Path::new(a), &mut files);
    }
    // Both tools write to the same place: a RAM file system where there is one, so that disk
    // write-back on a shared machine does not swamp the comparison.
    let scratch = match std::env::var_os("DIS_COMPARE_DIR") {
        Some(d) => PathBuf::from(d),
        None if Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    };
    let tmp = scratch.join(format!("dis-compare-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temporary directory");
    let mut containers = Vec::new();
    let mut bcs = Vec::new();
    let mut bc_bytes = 0usize;
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let Ok((bc, _)) = bitcode(&bytes) else {
            continue;
        };
        let p = tmp.join(format!("{}.bc", bcs.len()));
        std::fs::write(&p, bc).expect("write bitcode");
        bc_bytes += bc.len();
        bcs.push(p);
        containers.push(f.clone());
    }
    let n = bcs.len();
    println!(
        "{n} modules ({:.2} MB of bitcode) under {}",
        bc_bytes as f64 / 1e6,
        dirs.join(" ")
    );
    let have_llvm = Command::new("llvm-dis-14")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have_llvm {
        println!("llvm-dis-14 not found: only this crate's times are shown");
    }
    let rounds: usize = std::env::var("DIS_COMPARE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let ll = |i: usize, tag: &str| tmp.join(format!("{i}.{tag}.ll"));

    let mut best: [Option<(Duration, f64)>; 4] = [None; 4];
    // Keeps the fastest run of each kind; says whether this one was.
    let keep = |best: &mut [Option<(Duration, f64)>; 4], slot: usize, wall: Duration, cpu: f64| {
        let b = &mut best[slot];
        let faster = b.is_none_or(|(w, _)| wall < w);
        if faster {
            *b = Some((wall, cpu));
        }
        faster
    };
    let mut buf = Buffers::default();
    let mut out_bytes = 0;
    let mut splits = [Split::default(); 2];
    let clear_outputs = || {
        for e in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "ll") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    };
    for _ in 0..rounds {
        // Every round writes new files (replacing a file costs more than creating one).
        clear_outputs();
        if have_llvm {
            // llvm-dis writes X.ll next to each X.bc.
            let (wall, _, kids) = measure(|| {
                let ok = Command::new("llvm-dis-14")
                    .args(&bcs)
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "llvm-dis-14 failed");
            });
            keep(&mut best, 0, wall, kids);
        }
        let mut split = Split::default();
        let (wall, own, _) = measure(|| {
            out_bytes = 0;
            for (i, bc) in bcs.iter().enumerate() {
                out_bytes += dis_file(bc, &ll(i, "bc"), &mut buf, &mut split).expect("dis");
            }
        });
        if keep(&mut best, 1, wall, own) {
            splits[0] = split;
        }
        let mut split = Split::default();
        let (wall, own, _) = measure(|| {
            for (i, c) in containers.iter().enumerate() {
                dis_file(c, &ll(i, "dxil"), &mut buf, &mut split).expect("dis");
            }
        });
        if keep(&mut best, 2, wall, own) {
            splits[1] = split;
        }
        // What `dxil dis *.bc --out-dir D` does: the files shared out over every core.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (wall, own, _) = measure(|| {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        let (mut buf, mut split) = (Buffers::default(), Split::default());
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(bc) = bcs.get(i) else { break };
                            dis_file(bc, &ll(i, "par"), &mut buf, &mut split).expect("dis");
                        }
                    });
                }
            });
        });
        keep(&mut best, 3, wall, own);
    }
    let show = |what: &str, r: Option<(Duration, f64)>| {
        if let Some((w, c)) = r {
            println!(
                "  {what:<44} wall {:>8.1} ms  cpu {:>7.0} ms  ({:.1} µs/module)",
                w.as_secs_f64() * 1e3,
                c * 1e3,
                w.as_secs_f64() * 1e6 / n as f64
            );
        }
    };
    println!(
        "single process, best of {rounds} (our text: {:.1} MB):",
        out_bytes as f64 / 1e6
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let parts = |s: Split| {
        println!(
            "    of which read {:.1} ms, print {:.1} ms, file I/O {:.1} ms",
            ms(s.read),
            ms(s.print),
            ms(s.io)
        );
    };
    show("llvm-dis-14 *.bc", best[0]);
    show("dis, in process, over the .bc files", best[1]);
    parts(splits[0]);
    show("dis, in process, over the .dxil containers", best[2]);
    parts(splits[1]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    show(
        &format!("dis, in process, {threads} threads over the .bc files"),
        best[3],
    );
    if let (Some((lw, _)), Some((pw, _))) = (best[0], best[3]) {
        println!(
            "  speed-up with {threads} threads: {:.1}x (.bc) by wall time",
            lw.as_secs_f64() / pw.as_secs_f64()
        );
    }
    if let (Some((lw, lc)), Some((bw, bc)), Some((cw, cc))) = (best[0], best[1], best[2]) {
        println!(
            "  speed-up: {:.1}x (.bc), {:.1}x (.dxil) by wall time; {:.1}x, {:.1}x by CPU time",
            lw.as_secs_f64() / bw.as_secs_f64(),
            lw.as_secs_f64() / cw.as_secs_f64(),
            lc / bc.max(0.01),
            lc / cc.max(0.01)
        );
    }

    compare_per_process(&bcs, &ll, have_llvm);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The one-process-per-file half of [`compare`]: start-up cost counts there, as it does when a
/// build runs the tool once per shader. Runs every `DIS_COMPARE_STEP`th module (default all);
/// `ll` names a module's output file.
fn compare_per_process(bcs: &[PathBuf], ll: &dyn Fn(usize, &str) -> PathBuf, have_llvm: bool) {
    let n = bcs.len();
    let step: usize = std::env::var("DIS_COMPARE_STEP")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(1);
    let me = std::env::current_exe().expect("own path");
    let picked: Vec<usize> = (0..n).step_by(step).collect();
    let run_each = |program: &Path, tag: &str| {
        measure(|| {
            for &i in &picked {
                let ok = Command::new(program)
                    .arg(&bcs[i])
                    .arg("-o")
                    .arg(ll(i, tag))
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "{} failed on {}", program.display(), bcs[i].display());
            }
        })
    };
    println!("one process per file ({} files):", picked.len());
    let ours = run_each(&me, "proc");
    let theirs = have_llvm.then(|| run_each(Path::new("llvm-dis-14"), "llvm"));
    let m = picked.len() as f64;
    let line = |what: &str, (w, _, c): (Duration, f64, f64)| {
        println!(
            "  {what:<44} wall {:>8.1} ms  cpu {:>7.0} ms  ({:.2} ms/file)",
            w.as_secs_f64() * 1e3,
            c * 1e3,
            w.as_secs_f64() * 1e3 / m
        );
    };
    if let Some(t) = theirs {
        line("llvm-dis-14 N.bc -o N.ll", t);
    }
    line("dis N.bc -o N.ll", ours);
    if let Some(t) = theirs {
        println!(
            "  speed-up: {:.1}x by wall time, {:.1}x by CPU time",
            t.0.as_secs_f64() / ours.0.as_secs_f64(),
            t.2 / ours.2.max(0.01)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--compare") {
        compare(&args[1..]);
        return;
    }
    if args.len() == 3 && args[1] == "-o" {
        let mut buf = Buffers::default();
        let mut split = Split::default();
        if let Err(e) = dis_file(
            Path::new(&args[0]),
            Path::new(&args[2]),
            &mut buf,
            &mut split,
        ) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--bench") {
        let mut files = Vec::new();
        for a in &args[1..] {
            walk(Path::new(a), &mut files);
        }
        let inputs: Vec<(Vec<u8>, u64)> = files
            .iter()
            .filter_map(|f| {
                let bytes = std::fs::read(f).ok()?;
                let (bc, off) = bitcode(&bytes).ok()?;
                Some((bc.to_vec(), off))
            })
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
            let bytes = std::fs::read(f).expect("read file");
            let Ok((bc, off)) = bitcode(&bytes) else {
                continue;
            };
            let m = dxil_module::read_module(bc, off).expect("module");
            let mut file = std::fs::File::create(out.join(format!("{i}.ll"))).expect("create");
            dxil_text::write_module(&m, &dxil_text::PrintOptions::default(), &mut file)
                .expect("write");
        }
        return;
    }
    for a in &args {
        let bytes = std::fs::read(a).expect("read file");
        let (bc, off) = bitcode(&bytes).expect("container");
        let m = dxil_module::read_module(bc, off).expect("module");
        print!("{}", dxil_text::module_to_string(&m));
    }
}
