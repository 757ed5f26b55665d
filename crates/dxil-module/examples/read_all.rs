//! Reads every module of the corpus (for profiling the reader): `read_all [DIR] [ROUNDS]`.
//! The files are loaded first; then every container is parsed and its module read `ROUNDS`
//! times (default 1), so a profile of a run with many rounds shows the reader, not the disk.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "../shared/corpus".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let mut stack = vec![std::path::PathBuf::from(dir)];
    let mut data = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil")
                && let Ok(bytes) = std::fs::read(&p)
            {
                data.push(bytes);
            }
        }
    }
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..rounds {
        for bytes in &data {
            let Ok(c) = dxil_container::Container::parse(bytes) else {
                continue;
            };
            if let Some(Ok(prog)) = c.program()
                && let Ok(m) = dxil_module::read_module(prog.bitcode, 0)
            {
                n += m.functions.len();
            }
        }
    }
    let el = t.elapsed();
    println!(
        "{} containers x {rounds}: {:.2?} per round ({n} functions)",
        data.len(),
        el / rounds.max(1) as u32
    );
}
