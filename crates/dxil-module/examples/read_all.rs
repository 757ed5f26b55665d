//! Reads every module of the corpus once (for profiling the reader).
fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus".into());
    let mut stack = vec![std::path::PathBuf::from(dir)];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                let bytes = std::fs::read(&p).unwrap();
                let c = dxil_container::Container::parse(&bytes).unwrap();
                if let Some(Ok(prog)) = c.program() {
                    let m = dxil_module::read_module(prog.bitcode, 0).unwrap();
                    n += m.functions.len();
                }
            }
        }
    }
    println!("{n}");
}
