//! Translates SPIR-V files into an output folder (a debugging aid):
//! `cargo run --release -p dxil-from-spirv --example batch -- OUT_DIR FILE.spv...`
//! Prints one line per input: `ok` or the error.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: batch OUT_DIR FILE.spv...");
        std::process::exit(2);
    };
    let patchable = std::env::var_os("PATCHABLE").is_some();
    let options = dxil_from_spirv::Options {
        spec_constants: if patchable {
            dxil_from_spirv::SpecMode::Patchable
        } else {
            dxil_from_spirv::SpecMode::Fold
        },
        bindings: if std::env::var_os("SHIFTED").is_some() {
            dxil_from_spirv::BindingMap::Shifted
        } else {
            dxil_from_spirv::BindingMap::Default
        },
        ..Default::default()
    };
    for path in args {
        // The last three path components, so that equal file names in different folders do
        // not collide.
        let name = path
            .rsplit('/')
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("__");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("{path}: read error: {e}");
                continue;
            }
        };
        match dxil_from_spirv::translate_bytes(&bytes, &options) {
            Ok(o) => {
                let dst = format!("{out}/{name}.dxil");
                if let Err(e) = std::fs::write(&dst, &o.container) {
                    println!("{path}: write error: {e}");
                } else {
                    println!("{path}: ok");
                }
            }
            Err(e) => println!("{path}: {e}"),
        }
    }
}
