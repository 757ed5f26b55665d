//! Translates DXIL containers and prints the SPIR-V as text: `cargo run --example translate -- FILE.dxil...`.
//! With `--val`, also runs `spirv-val` on each result; `-o FILE` writes the words instead of printing text.

use std::process::Command;

fn main() {
    let mut validate = false;
    let mut names = false;
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-o" {
            out = args.next();
            continue;
        }
        if arg == "--val" {
            validate = true;
            continue;
        }
        if arg == "--names" {
            names = true;
            continue;
        }
        let bytes = match std::fs::read(&arg) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{arg}: {e}");
                continue;
            }
        };
        let options = dxil_to_spirv::Options {
            debug_names: names,
            ..Default::default()
        };
        match dxil_to_spirv::translate_container(&bytes, &options) {
            Ok(t) => {
                if let Some(o) = &out {
                    let bytes: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    if let Err(e) = std::fs::write(o, bytes) {
                        eprintln!("{o}: {e}");
                    }
                    continue;
                }
                match dxil_to_spirv::disassemble(&t.words) {
                    Ok(text) => println!("{text}"),
                    Err(e) => println!("(disassembly failed: {e})"),
                }
                for b in &t.bindings {
                    println!("; binding {b:?}");
                }
                if validate {
                    let path = std::env::temp_dir().join("dxil-to-spirv-example.spv");
                    let bytes: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    if std::fs::write(&path, bytes).is_ok() {
                        let env = format!("vulkan{}.{}", t.vulkan_version.0, t.vulkan_version.1);
                        let out = Command::new("spirv-val")
                            .arg("--target-env")
                            .arg(&env)
                            .arg(&path)
                            .output();
                        match out {
                            Ok(o) if o.status.success() => println!("; spirv-val {env}: ok"),
                            Ok(o) => println!(
                                "; spirv-val {env}: FAILED\n{}{}",
                                String::from_utf8_lossy(&o.stdout),
                                String::from_utf8_lossy(&o.stderr)
                            ),
                            Err(e) => println!("; spirv-val: {e}"),
                        }
                    }
                }
            }
            Err(e) => println!("{arg}: error: {e}"),
        }
    }
}
