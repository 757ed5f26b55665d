//! The root signature that describes the bindings: push constants as root constants, then per
//! descriptor set one table of CBV/SRV/UAV ranges and one table of samplers.

use dxil_rootsig::{
    DescriptorRange, DescriptorRangeFlags, DescriptorTable, RangeType, RootConstants,
    RootParameter, RootParameterKind, RootSignature, RootSignatureFlags, ShaderVisibility, Version,
};

use crate::bindings::{BindingInfo, DescriptorKind, RegisterClass};
use crate::error::{Error, ErrorKind, Result};

/// Builds the root signature and fills in each binding's parameter and table offset.
pub fn build(
    bindings: &mut [BindingInfo],
    push_constant_bytes: Option<u32>,
) -> Result<RootSignature> {
    let mut params = Vec::new();
    if let Some(bytes) = push_constant_bytes
        && let Some(pc) = bindings
            .iter_mut()
            .find(|b| b.kind == DescriptorKind::PushConstants)
    {
        pc.root_parameter = Some(params.len() as u32);
        params.push(RootParameter {
            shader_visibility: ShaderVisibility::All,
            kind: RootParameterKind::Constants(RootConstants {
                shader_register: pc.register,
                register_space: pc.space,
                num_32bit_values: bytes.div_ceil(4),
            }),
        });
    }
    let mut sets: Vec<u32> = bindings
        .iter()
        .filter(|b| b.kind != DescriptorKind::PushConstants)
        .map(|b| b.set)
        .collect();
    sets.sort_unstable();
    sets.dedup();
    for set in sets {
        for samplers in [false, true] {
            let mut idx: Vec<usize> = (0..bindings.len())
                .filter(|&i| {
                    let b = &bindings[i];
                    b.kind != DescriptorKind::PushConstants
                        && b.set == set
                        && (b.class == RegisterClass::Sampler) == samplers
                })
                .collect();
            idx.sort_by_key(|&i| {
                (
                    bindings[i].binding,
                    bindings[i].class == RegisterClass::Sampler,
                )
            });
            // Bounded bindings share one table; a runtime array has a table of its own (a
            // range after an unbounded one has no offset).
            let (unbounded, bounded): (Vec<usize>, Vec<usize>) = idx
                .into_iter()
                .partition(|&i| bindings[i].count == u32::MAX);
            if !bounded.is_empty() {
                push_table(&mut params, bindings, &bounded, samplers)?;
            }
            for i in unbounded {
                push_table(&mut params, bindings, &[i], samplers)?;
            }
        }
    }
    Ok(RootSignature {
        version: Version::V1_1,
        flags: RootSignatureFlags::ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT,
        parameters: params,
        static_samplers: Vec::new(),
    })
}

/// Appends a descriptor table holding `idx`'s bindings, one range each, in order.
fn push_table(
    params: &mut Vec<RootParameter>,
    bindings: &mut [BindingInfo],
    idx: &[usize],
    samplers: bool,
) -> Result<()> {
    let param = params.len() as u32;
    let mut ranges = Vec::with_capacity(idx.len());
    let mut offset: u64 = 0;
    for &i in idx {
        let b = &mut bindings[i];
        let range_type = match b.class {
            RegisterClass::Srv => RangeType::Srv,
            RegisterClass::Uav => RangeType::Uav,
            RegisterClass::Cbv => RangeType::Cbv,
            RegisterClass::Sampler => RangeType::Sampler,
        };
        b.root_parameter = Some(param);
        b.table_offset = u32::try_from(offset).ok();
        ranges.push(DescriptorRange {
            range_type,
            num_descriptors: b.count,
            base_shader_register: b.register,
            register_space: b.space,
            flags: if samplers {
                DescriptorRangeFlags::DESCRIPTORS_VOLATILE
            } else {
                DescriptorRangeFlags::DESCRIPTORS_VOLATILE | DescriptorRangeFlags::DATA_VOLATILE
            },
            offset_in_descriptors_from_table_start: u32::try_from(offset)
                .map_err(|_| Error::new(ErrorKind::Binding, "descriptor table too large"))?,
        });
        offset += u64::from(b.count);
    }
    params.push(RootParameter {
        shader_visibility: ShaderVisibility::All,
        kind: RootParameterKind::DescriptorTable(DescriptorTable { ranges }),
    });
    Ok(())
}
