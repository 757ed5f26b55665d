//! Requests applied to a finished module: small edits of the annotation section that need no knowledge of how the
//! code was lowered.

use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass};

/// The instructions of a module (after the 5-word header) as (offset, opcode, word count).
fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, u32, usize)> + '_ {
    let mut i = 5;
    std::iter::from_fn(move || {
        let w = *words.get(i)?;
        let count = (w >> 16) as usize;
        if count == 0 || i + count > words.len() {
            return None;
        }
        let at = i;
        i += count;
        Some((at, w & 0xFFFF, count))
    })
}

fn inst(op: Op, operands: &[u32]) -> impl Iterator<Item = u32> + '_ {
    std::iter::once(((operands.len() as u32 + 1) << 16) | op as u32).chain(operands.iter().copied())
}

/// What the output edits need from the annotation and global sections, gathered in one pass.
#[derive(Default)]
struct Outputs {
    /// Output variables.
    vars: Vec<u32>,
    /// Pointee types of output pointers (an output block's struct).
    pointees: Vec<u32>,
    /// Variables decorated `BuiltIn Position`.
    position_vars: Vec<u32>,
    /// (struct, member) decorated `BuiltIn Position`.
    position_members: Vec<(u32, u32)>,
    /// (offset of the instruction, variable) of each `Location 1` decoration.
    location_1: Vec<(usize, u32)>,
    /// Just past the last decoration: where new decorations go.
    last_decoration: Option<usize>,
}

fn gather_outputs(words: &[u32]) -> Outputs {
    let mut o = Outputs::default();
    for (at, op, count) in instructions(words) {
        let w = &words[at..at + count];
        if op == Op::Decorate as u32 || op == Op::MemberDecorate as u32 {
            o.last_decoration = Some(at + count);
        }
        if op == Op::Decorate as u32 && count == 4 {
            if w[2] == Decoration::BuiltIn as u32 && w[3] == BuiltIn::Position as u32 {
                o.position_vars.push(w[1]);
            } else if w[2] == Decoration::Location as u32 && w[3] == 1 {
                o.location_1.push((at, w[1]));
            }
        } else if op == Op::MemberDecorate as u32
            && count == 5
            && w[3] == Decoration::BuiltIn as u32
            && w[4] == BuiltIn::Position as u32
        {
            o.position_members.push((w[1], w[2]));
        } else if op == Op::Variable as u32 && count >= 4 && w[3] == StorageClass::Output as u32 {
            o.vars.push(w[2]);
        } else if op == Op::TypePointer as u32 && count == 4 && w[2] == StorageClass::Output as u32
        {
            o.pointees.push(w[3]);
        } else if op == Op::Function as u32 {
            break;
        }
    }
    o
}

/// Edits of the outputs' decorations, from one scan of the module:
///
/// * `invariant_position`: decorates the vertex position output `Invariant` (D3D's invariant position: the same
///   position computation in two pipelines gives the same result). Covers a `Position` output variable and a
///   `Position` member of an output block; other modules are left as they are.
/// * `dual_source_blending`: the pixel shader's `SV_Target1` output (location 1; render targets are the only
///   located pixel shader outputs) becomes the second source of attachment 0, `Location 0, Index 1`.
pub(crate) fn output_decorations(
    words: &mut Vec<u32>,
    invariant_position: bool,
    dual_source_blending: bool,
) {
    if !invariant_position && !dual_source_blending {
        return;
    }
    let o = gather_outputs(words);
    let Some(insert_at) = o.last_decoration else {
        return;
    };
    let mut added = Vec::new();
    if invariant_position {
        for &v in o.position_vars.iter().filter(|v| o.vars.contains(v)) {
            added.extend(inst(Op::Decorate, &[v, Decoration::Invariant as u32]));
        }
        for &(block, member) in o
            .position_members
            .iter()
            .filter(|(b, _)| o.pointees.contains(b))
        {
            added.extend(inst(
                Op::MemberDecorate,
                &[block, member, Decoration::Invariant as u32],
            ));
        }
    }
    if dual_source_blending
        && let Some(&(at, var)) = o.location_1.iter().find(|(_, v)| o.vars.contains(v))
    {
        // The decoration lies before `insert_at`, so the splice below leaves its offset valid.
        words[at + 3] = 0;
        added.extend(inst(Op::Decorate, &[var, Decoration::Index as u32, 1]));
    }
    if !added.is_empty() {
        words.splice(insert_at..insert_at, added);
    }
}

/// Which output variable a captured element is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum XfbTarget {
    BuiltIn(BuiltIn),
    /// A located output: (location, component).
    Location(u32, u32),
}

/// A captured output and where it goes: (target, buffer, offset, stride).
pub(crate) type Xfb = (XfbTarget, u32, u32, u32);

/// Transform feedback: `TransformFeedback`, the `Xfb` execution mode, and `XfbBuffer` / `XfbStride` / `Offset` on
/// each captured output variable. Fails naming the first target without an output variable.
pub(crate) fn stream_output(words: &mut Vec<u32>, captured: &[Xfb]) -> Result<(), String> {
    let mut outputs = Vec::new();
    let mut builtins = Vec::new();
    let mut locations = Vec::new();
    let mut components = Vec::new();
    let (mut after_caps, mut after_modes, mut after_decos, mut entry) = (None, None, None, None);
    for (at, op, count) in instructions(words) {
        let w = &words[at..at + count];
        let end = Some(at + count);
        match Op::from_u32(op) {
            Some(Op::Capability) => after_caps = end,
            Some(Op::EntryPoint) if count >= 3 => {
                entry = entry.or(Some(w[2]));
                after_modes = after_modes.or(end);
            }
            Some(Op::ExecutionMode | Op::ExecutionModeId) => after_modes = end,
            Some(Op::Decorate | Op::MemberDecorate) => {
                after_decos = end;
                if op == Op::Decorate as u32 && count == 4 {
                    match Decoration::from_u32(w[2]) {
                        Some(Decoration::BuiltIn) => builtins.push((w[1], w[3])),
                        Some(Decoration::Location) => locations.push((w[1], w[3])),
                        Some(Decoration::Component) => components.push((w[1], w[3])),
                        _ => {}
                    }
                }
            }
            Some(Op::Variable) if count >= 4 && w[3] == StorageClass::Output as u32 => {
                outputs.push(w[2])
            }
            Some(Op::Function) => break,
            _ => {}
        }
    }
    let (Some(after_caps), Some(after_modes), Some(after_decos), Some(entry)) =
        (after_caps, after_modes, after_decos, entry)
    else {
        return Err("the module has no entry point or decorations".into());
    };
    let mut decos = Vec::new();
    for &(target, buffer, offset, stride) in captured {
        let var = outputs.iter().copied().find(|v| match target {
            XfbTarget::BuiltIn(b) => builtins.contains(&(*v, b as u32)),
            XfbTarget::Location(l, c) => {
                locations.contains(&(*v, l))
                    && components
                        .iter()
                        .find(|(x, _)| x == v)
                        .map_or(0, |&(_, k)| k)
                        == c
            }
        });
        let Some(var) = var else {
            return Err(format!("no output variable for {target:?}"));
        };
        decos.extend(inst(
            Op::Decorate,
            &[var, Decoration::XfbBuffer as u32, buffer],
        ));
        decos.extend(inst(
            Op::Decorate,
            &[var, Decoration::XfbStride as u32, stride],
        ));
        decos.extend(inst(
            Op::Decorate,
            &[var, Decoration::Offset as u32, offset],
        ));
    }
    // From the back, so that the earlier positions stay valid.
    words.splice(after_decos..after_decos, decos);
    words.splice(
        after_modes..after_modes,
        inst(Op::ExecutionMode, &[entry, ExecutionMode::Xfb as u32]),
    );
    words.splice(
        after_caps..after_caps,
        inst(Op::Capability, &[Capability::TransformFeedback as u32]),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u32> {
        vec![0x0723_0203, 0x0001_0300, 0, 20, 0]
    }

    #[test]
    fn decorates_the_position_output() {
        let mut m = header();
        m.extend(inst(
            Op::Decorate,
            &[5, Decoration::BuiltIn as u32, BuiltIn::Position as u32],
        ));
        m.extend(inst(
            Op::Decorate,
            &[6, Decoration::BuiltIn as u32, BuiltIn::Position as u32],
        ));
        m.extend(inst(Op::Variable, &[3, 5, StorageClass::Output as u32]));
        m.extend(inst(Op::Variable, &[3, 6, StorageClass::Input as u32]));
        let before = m.len();
        output_decorations(&mut m, true, false);
        assert_eq!(m.len(), before + 3);
        // After the last decoration, before the variables.
        assert_eq!(
            &m[13..16],
            &[
                (3 << 16) | Op::Decorate as u32,
                5,
                Decoration::Invariant as u32
            ]
        );
        assert_eq!(m[16], (4 << 16) | Op::Variable as u32);
    }

    #[test]
    fn the_second_target_becomes_index_1_of_location_0() {
        let mut m = header();
        m.extend(inst(Op::Decorate, &[5, Decoration::Location as u32, 0]));
        m.extend(inst(Op::Decorate, &[6, Decoration::Location as u32, 1]));
        m.extend(inst(Op::Variable, &[3, 5, StorageClass::Output as u32]));
        m.extend(inst(Op::Variable, &[3, 6, StorageClass::Output as u32]));
        output_decorations(&mut m, false, true);
        assert_eq!(
            &m[9..13],
            &[
                (4 << 16) | Op::Decorate as u32,
                6,
                Decoration::Location as u32,
                0
            ]
        );
        assert_eq!(
            &m[13..17],
            &[
                (4 << 16) | Op::Decorate as u32,
                6,
                Decoration::Index as u32,
                1
            ]
        );
    }

    #[test]
    fn captured_outputs_get_transform_feedback_decorations() {
        let mut m = header();
        m.extend(inst(Op::Capability, &[Capability::Shader as u32]));
        m.extend(inst(Op::EntryPoint, &[0, 9, 0x6E69_616D, 0]));
        m.extend(inst(
            Op::Decorate,
            &[5, Decoration::BuiltIn as u32, BuiltIn::Position as u32],
        ));
        m.extend(inst(Op::Decorate, &[6, Decoration::Location as u32, 1]));
        m.extend(inst(Op::Decorate, &[6, Decoration::Component as u32, 2]));
        m.extend(inst(Op::Variable, &[3, 5, StorageClass::Output as u32]));
        m.extend(inst(Op::Variable, &[3, 6, StorageClass::Output as u32]));
        stream_output(
            &mut m,
            &[
                (XfbTarget::BuiltIn(BuiltIn::Position), 0, 0, 24),
                (XfbTarget::Location(1, 2), 0, 16, 24),
            ],
        )
        .unwrap();
        let text: Vec<u32> = m.clone();
        let find = |pat: &[u32]| text.windows(pat.len()).any(|w| w == pat);
        assert!(find(&[
            (2 << 16) | Op::Capability as u32,
            Capability::TransformFeedback as u32
        ]));
        assert!(find(&[
            (3 << 16) | Op::ExecutionMode as u32,
            9,
            ExecutionMode::Xfb as u32
        ]));
        assert!(find(&[
            (4 << 16) | Op::Decorate as u32,
            5,
            Decoration::Offset as u32,
            0
        ]));
        assert!(find(&[
            (4 << 16) | Op::Decorate as u32,
            6,
            Decoration::Offset as u32,
            16
        ]));
        assert!(find(&[
            (4 << 16) | Op::Decorate as u32,
            6,
            Decoration::XfbStride as u32,
            24
        ]));
        assert!(
            stream_output(&mut m, &[(XfbTarget::Location(3, 0), 0, 0, 4)])
                .unwrap_err()
                .contains("no output variable")
        );
    }

    #[test]
    fn leaves_modules_without_a_position_output_alone() {
        let mut m = header();
        m.extend(inst(
            Op::Decorate,
            &[6, Decoration::BuiltIn as u32, BuiltIn::Position as u32],
        ));
        m.extend(inst(Op::Variable, &[3, 6, StorageClass::Input as u32]));
        let before = m.clone();
        output_decorations(&mut m, true, false);
        assert_eq!(m, before);
    }
}
