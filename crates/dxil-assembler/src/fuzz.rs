//! The fuzz body of the `assemble` target (in the crate, so that `cargo test` runs it too).

use dxil_container::{Container, DigestStatus};

use crate::{AssembleOptions, Error, assemble};

/// Assembles `data` as a listing and checks what comes out: a text error points inside the
/// text; a container parses strictly, is signed, every part decodes, and its module prints to a
/// listing that assembles to the same bytes.
pub fn fuzz_assemble(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = AssembleOptions {
        allow_library_without_rdat: true,
        ..Default::default()
    };
    let bytes = match assemble(text, &options) {
        Ok(b) => b,
        Err(Error::Parse(e)) => {
            let lines = text.lines().count() as u32 + 1;
            assert!(e.line >= 1 && e.line <= lines, "line {} of {lines}", e.line);
            assert!(e.column >= 1);
            assert!(e.offset as usize <= text.len());
            return;
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let c = Container::parse(&bytes).expect("the assembled container parses");
    // Parts of validator versions before 1.7 may be unaligned (DXC writes them so).
    assert!(
        !c.problems().iter().any(|p| p.is_fatal()),
        "{:?}",
        c.problems()
    );
    assert_eq!(c.digest_status(), DigestStatus::Signed);
    for p in c.parts() {
        if let Err(e) = c.decode(p) {
            panic!("{}: {e}", p.fourcc);
        }
    }
    let program = match c.program() {
        Some(Ok(p)) => p,
        _ => panic!("no DXIL part"),
    };
    let module = dxil_module::read_module(program.bitcode, 0).expect("the bitcode reads back");
    let again = assemble(&dxil_text::module_to_string(&module), &options)
        .expect("the printed module assembles");
    assert!(
        again == bytes,
        "assembling the printed module gives other bytes"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPUTE: &str = "target datalayout = \"e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64\"
target triple = \"dxil-ms-dx\"

define void @main() {
  ret void
}

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!\"cs\", i32 6, i32 0}
!3 = !{void ()* @main, !\"main\", null, null, !4}
!4 = !{i32 4, !5}
!5 = !{i32 8, i32 1, i32 1}
";

    #[test]
    fn fuzz_body_on_the_test_listings() {
        for text in [
            include_str!("../tests/data/vs_passthrough.ll"),
            include_str!("../tests/data/ps_depth.ll"),
            include_str!("../tests/data/ds_isoline.ll"),
            include_str!("../tests/data/gs_streams.ll"),
            include_str!("../tests/data/lib_callable.ll"),
            include_str!("../../../examples/compute-add.ll"),
        ] {
            fuzz_assemble(text.as_bytes());
        }
    }

    #[test]
    fn fuzz_body_on_a_listing_and_its_mutations() {
        fuzz_assemble(COMPUTE.as_bytes());
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..400 {
            let mut bytes = COMPUTE.as_bytes().to_vec();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 3 {
                    0 => bytes[at] = b"0123456789!{}(),@%\" -9xi"[(next() % 24) as usize],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.truncate(at),
                }
            }
            fuzz_assemble(&bytes);
        }
    }
}
