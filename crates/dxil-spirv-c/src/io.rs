//! The stage interface remappers. The translator places a user element at location = its start row, component =
//! its start column; a remapper may confirm that (a run goes on), refuse (the run fails with an invalid argument),
//! or ask for something else, which the translator cannot do yet (the run fails as unsupported). The elements the
//! stream output remapper enables become [`StreamOutput`] requests.

use dxil_to_spirv::options::StreamOutput;

use crate::abi::{self, stage as s};
use crate::blob::{IoElement, ParsedBlob};
use crate::converter::{Converter, RunError};

fn unsupported(message: String) -> RunError {
    RunError {
        code: abi::ERROR_UNSUPPORTED_FEATURE,
        message,
    }
}

fn refused(what: &str, e: &IoElement) -> RunError {
    RunError {
        code: abi::ERROR_INVALID_ARGUMENT,
        message: format!(
            "the {what} remapper refused {}{}",
            e.semantic.to_string_lossy(),
            e.indices.first().copied().unwrap_or(0)
        ),
    }
}

/// Calls the interface remappers the converter has for the entry point's signature elements; returns the elements
/// stream output captures.
pub fn check_interface(
    c: &Converter,
    blob: &ParsedBlob,
    entry: Option<usize>,
) -> Result<Vec<StreamOutput>, RunError> {
    let mut captured = Vec::new();
    let Some(e) = entry.or((!blob.entries.is_empty()).then_some(0)) else {
        return Ok(captured);
    };
    let e = &blob.entries[e];
    if let Some(cb) = c.remappers.vertex_input
        && e.stage == s::VERTEX
    {
        for el in e.io(&blob.dxil)[0].iter().filter(|x| x.user) {
            let d3d = abi::D3dVertexInput {
                semantic: el.semantic.as_ptr(),
                semantic_index: el.indices.first().copied().unwrap_or(0),
                start_row: el.start_row,
                rows: el.rows,
            };
            let mut vk = abi::VulkanVertexInput::default();
            // SAFETY: the callback was given to `dxil_spv_converter_set_vertex_input_remapper` and is valid during
            // the run; both pointers point at live locals, the semantic at a string the blob owns.
            if unsafe { (cb.f)(cb.userdata, &d3d, &mut vk) } == abi::FALSE {
                return Err(refused("vertex input", el));
            }
            if vk.location != el.start_row {
                return Err(unsupported(format!(
                    "vertex input {} at location {} (the translator puts it at its start row, {})",
                    el.semantic.to_string_lossy(),
                    vk.location,
                    el.start_row
                )));
            }
        }
    }
    if let Some(cb) = c.remappers.stream_output
        && matches!(e.stage, s::VERTEX | s::GEOMETRY | s::DOMAIN)
    {
        for el in &e.io(&blob.dxil)[1] {
            for &index in &el.indices {
                let d3d = abi::D3dStreamOutput {
                    semantic: el.semantic.as_ptr(),
                    semantic_index: index,
                };
                let mut vk = abi::VulkanStreamOutput::default();
                // SAFETY: as for the vertex input remapper, with the stream output remapper.
                if unsafe { (cb.f)(cb.userdata, &d3d, &mut vk) } == abi::FALSE {
                    return Err(refused("stream output", el));
                }
                if vk.enable != abi::FALSE {
                    captured.push(StreamOutput {
                        semantic: el.semantic.to_string_lossy().into_owned(),
                        index,
                        buffer: vk.buffer_index,
                        offset: vk.offset,
                        stride: vk.stride,
                    });
                }
            }
        }
    }
    for (cb, which, what) in [
        (c.remappers.stage_input, 0, "stage input"),
        (c.remappers.stage_output, 1, "stage output"),
    ] {
        let Some(cb) = cb else { continue };
        for el in e.io(&blob.dxil)[which].iter().filter(|x| x.user) {
            let d3d = abi::D3dShaderStageIo {
                semantic: el.semantic.as_ptr(),
                semantic_index: el.indices.first().copied().unwrap_or(0),
                start_row: el.start_row,
                rows: el.rows,
            };
            let mut vk = abi::VulkanShaderStageIo {
                location: el.start_row,
                component: el.start_col,
                flags: 0,
            };
            // SAFETY: as for the vertex input remapper, with the stage interface remappers.
            if unsafe { (cb.f)(cb.userdata, &d3d, &mut vk) } == abi::FALSE {
                return Err(refused(what, el));
            }
            if (vk.location, vk.component, vk.flags) != (el.start_row, el.start_col, 0) {
                return Err(unsupported(format!(
                    "{what} {} remapped to location {} component {} flags {:#x} (not supported)",
                    el.semantic.to_string_lossy(),
                    vk.location,
                    vk.component,
                    vk.flags
                )));
            }
        }
    }
    Ok(captured)
}
