//! Cases for differential runs: one shader, two SPIR-V translations (DXC's and ours), the same
//! inputs, and a comparison of every resource afterwards.

use std::path::PathBuf;

use crate::case::{
    Binding, Case, REGISTERS_PER_CLASS, Register, RegisterClass, Resource, ResourceKind,
};
use crate::expect::{ExpectedWord, Mismatch};
use crate::init::Init;
use crate::report::RunReport;

/// Bytes of every buffer resource in a differential case (D3D12's largest constant buffer).
pub const DIFFERENTIAL_SIZE: u64 = 65536;
/// Thread groups of the dispatch of a differential case.
pub const DIFFERENTIAL_DISPATCH: [u32; 3] = [2, 1, 1];
/// Inputs are words in `0..=DIFFERENTIAL_MAX_WORD`, small enough to keep data-driven loop counts
/// and indices short.
pub const DIFFERENTIAL_MAX_WORD: u32 = 255;

/// A resource range a shader declares (from its DXIL resource metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclaredResource {
    pub class: RegisterClass,
    pub space: u32,
    /// First register of the range.
    pub register: u32,
    /// Registers in the range (1 for a single resource; `u32::MAX` for an unbounded range).
    pub count: u32,
    pub kind: ResourceKind,
}

/// Why no differential case could be made.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DifferentialError {
    #[error(
        "{class}{register} (space {space}): {count} registers; ranges of 1..=16 registers are supported"
    )]
    RangeSize {
        class: char,
        register: u32,
        space: u32,
        count: u32,
    },
    #[error("{0}: the default binding model has registers 0..=99 per class")]
    RegisterTooHigh(Register),
    #[error("{0} is declared twice")]
    Overlap(Register),
    #[error("{0}: kind {1:?} does not suit the register class")]
    KindMismatch(Register, ResourceKind),
}

/// Largest register range expanded into separate resources.
const MAX_RANGE: u32 = 16;

/// Builds the version-1 case of the corpus differential check: every declared buffer gets
/// [`DIFFERENTIAL_SIZE`] bytes of `random-range` words in `0..=255` (a different seed each), every
/// sampler a default sampler, and the shader runs [`DIFFERENTIAL_DISPATCH`] groups. The case has
/// no expectations: run it with both modules and compare the reports with [`diff_reports`].
pub fn differential_case(
    shader: impl Into<PathBuf>,
    entry: Option<String>,
    declared: &[DeclaredResource],
) -> Result<Case, DifferentialError> {
    let mut resources: Vec<Resource> = Vec::new();
    for d in declared {
        if d.count == 0 || d.count > MAX_RANGE {
            return Err(DifferentialError::RangeSize {
                class: d.class.letter(),
                register: d.register,
                space: d.space,
                count: d.count,
            });
        }
        for i in 0..d.count {
            let register = Register {
                class: d.class,
                number: d.register.saturating_add(i),
                space: d.space,
            };
            if register.number >= REGISTERS_PER_CLASS {
                return Err(DifferentialError::RegisterTooHigh(register));
            }
            if resources.iter().any(|r| r.register == register) {
                return Err(DifferentialError::Overlap(register));
            }
            let fits = match d.kind {
                ResourceKind::Constant => d.class == RegisterClass::Cbv,
                ResourceKind::Sampler => d.class == RegisterClass::Sampler,
                _ => matches!(d.class, RegisterClass::Srv | RegisterClass::Uav),
            };
            if !fits {
                return Err(DifferentialError::KindMismatch(register, d.kind));
            }
            let seed = u32::try_from(resources.len())
                .unwrap_or(u32::MAX - 1)
                .saturating_add(1);
            resources.push(if d.kind == ResourceKind::Sampler {
                Resource {
                    register,
                    kind: d.kind,
                    size: 0,
                    init: Init::Zero,
                }
            } else {
                Resource {
                    register,
                    kind: d.kind,
                    size: DIFFERENTIAL_SIZE,
                    init: Init::RandomRange {
                        seed,
                        lo: 0,
                        hi: DIFFERENTIAL_MAX_WORD,
                    },
                }
            });
        }
    }
    let shader = shader.into();
    Ok(Case {
        source: shader.with_extension("differential.toml"),
        shader,
        entry,
        dispatch: Some(DIFFERENTIAL_DISPATCH),
        binding: Binding::Registers(resources),
        expects: Vec::new(),
    })
}

/// Compares two runs of one case resource by resource: for each resource whose final bytes
/// differ, the first differing word with `reference`'s word as the expected one.
pub fn diff_reports(reference: &RunReport, candidate: &RunReport) -> Vec<Mismatch> {
    let word = |bytes: &[u8], i: usize| -> u32 {
        let mut w = [0u8; 4];
        for (k, slot) in w.iter_mut().enumerate() {
            *slot = bytes.get(i * 4 + k).copied().unwrap_or(0);
        }
        u32::from_le_bytes(w)
    };
    let mut out = Vec::new();
    for r in &reference.outputs {
        let c = candidate.output(&r.name).map_or(&[][..], |o| &o.bytes[..]);
        let words = r.bytes.len().max(c.len()).div_ceil(4);
        let mut first = None;
        let mut differing = 0;
        for i in 0..words {
            let (a, b) = (word(&r.bytes, i), word(c, i));
            if a != b {
                differing += 1;
                first.get_or_insert((i, a, b));
            }
        }
        if let Some((index, expected, actual)) = first {
            out.push(Mismatch {
                target: r.name.clone(),
                index,
                expected: ExpectedWord::U32(expected),
                actual,
                differing,
                total: words,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::report::{Output, Timings};

    fn declared(
        class: RegisterClass,
        register: u32,
        count: u32,
        kind: ResourceKind,
    ) -> DeclaredResource {
        DeclaredResource {
            class,
            space: 0,
            register,
            count,
            kind,
        }
    }

    #[test]
    fn builds_random_inputs_for_every_register() {
        let case = differential_case(
            "x.dxil",
            None,
            &[
                declared(
                    RegisterClass::Srv,
                    0,
                    2,
                    ResourceKind::Typed {
                        format: Format::R32Float,
                    },
                ),
                declared(
                    RegisterClass::Uav,
                    1,
                    1,
                    ResourceKind::Structured { stride: 12 },
                ),
                declared(RegisterClass::Cbv, 0, 1, ResourceKind::Constant),
                declared(RegisterClass::Sampler, 3, 1, ResourceKind::Sampler),
            ],
        )
        .unwrap();
        let Binding::Registers(resources) = &case.binding else {
            panic!()
        };
        let names: Vec<String> = resources.iter().map(|r| r.register.to_string()).collect();
        assert_eq!(names, ["t0", "t1", "u1", "b0", "s3"]);
        assert_eq!(resources[0].size, DIFFERENTIAL_SIZE);
        assert_eq!(resources[4].size, 0);
        // Distinct seeds, bounded words.
        assert_ne!(resources[0].init, resources[1].init);
        let bytes = resources[2].init.to_bytes(1024);
        assert!(
            bytes
                .chunks(4)
                .all(|c| u32::from_le_bytes(c.try_into().unwrap()) <= 255)
        );
        assert_eq!(case.dispatch, Some(DIFFERENTIAL_DISPATCH));
        assert!(case.expects.is_empty());
    }

    #[test]
    fn rejects_what_the_default_binding_model_cannot_express() {
        let raw = ResourceKind::Raw;
        let cases = [
            (vec![declared(RegisterClass::Srv, 0, 0, raw)], "registers"),
            (
                vec![declared(RegisterClass::Srv, 0, u32::MAX, raw)],
                "registers",
            ),
            (vec![declared(RegisterClass::Srv, 99, 2, raw)], "0..=99"),
            (
                vec![
                    declared(RegisterClass::Srv, 0, 2, raw),
                    declared(RegisterClass::Srv, 1, 1, raw),
                ],
                "twice",
            ),
            (vec![declared(RegisterClass::Cbv, 0, 1, raw)], "class"),
            (
                vec![declared(RegisterClass::Uav, 0, 1, ResourceKind::Constant)],
                "class",
            ),
        ];
        for (list, needle) in cases {
            let err = differential_case("x.dxil", None, &list).unwrap_err();
            assert!(err.to_string().contains(needle), "{err}");
        }
    }

    #[test]
    fn diff_reports_finds_first_differing_word() {
        let report = |u0: Vec<u8>| RunReport {
            device: String::new(),
            outputs: vec![
                Output {
                    name: "t0".into(),
                    file_stem: "t0".into(),
                    bytes: vec![1, 0, 0, 0],
                },
                Output {
                    name: "u0".into(),
                    file_stem: "u0".into(),
                    bytes: u0,
                },
            ],
            mismatches: vec![],
            timings: Timings::default(),
            dispatch_times: vec![],
        };
        let a = report(vec![0, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0]);
        let b = report(vec![0, 0, 0, 0, 5, 0, 0, 1, 7, 0, 0, 0]);
        assert!(diff_reports(&a, &a).is_empty());
        let d = diff_reports(&a, &b);
        assert_eq!(d.len(), 1);
        assert_eq!(
            (
                d[0].target.as_str(),
                d[0].index,
                d[0].actual,
                d[0].differing
            ),
            ("u0", 1, 0x0100_0005, 2)
        );
    }
}
