//! Local root signatures (DXR): the arguments of a shader record.
//!
//! A ray-tracing shader reads the arguments of its shader-table record through the `ShaderRecordBufferKHR` block,
//! which the translator declares as `struct { uint words[]; }` (`Block`, array stride 4). The record lays the
//! parameters out in order as D3D12 does: root constants are 4-byte words; root descriptors and descriptor tables
//! are 8 bytes, 8-byte aligned. A resource whose register a parameter holds is read from the record instead of
//! the global binding model:
//!
//! | Parameter | What the record holds | How the shader reads it |
//! |---|---|---|
//! | root constants (`b#`) | the constants | words of the record, like global root constants (a dynamic row index is clamped to the constants and reads 0 past them) |
//! | root CBV/SRV/UAV | the 64-bit GPU address | a `PhysicalStorageBuffer` pointer (raw and structured buffers, constant buffers), or `OpConvertUToAccelerationStructureKHR` (acceleration structures) |
//! | descriptor table | a GPU descriptor handle | heap slot `(low word >> table_shift) + range offset + register − range base` (+ dynamic index) in the heap array the binding model gives for the view ([`BindingModel::local_heap`](super::BindingModel::local_heap)) |
//!
//! [`LocalRootSignature::table_shift`] says how a descriptor handle becomes a heap slot: a runtime that writes
//! `slot << shift` (a heap whose handles step by `1 << shift` bytes, based at 0) into its records sets the shift;
//! one that writes slot indices sets 0.

use std::fmt;

use super::D3dBinding;
use crate::dxil::ResourceClass;

/// A local root signature: the parameters of a shader record, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalRootSignature {
    pub parameters: Vec<LocalParameter>,
    /// `[CBV/SRV/UAV heap, sampler heap]`: a descriptor table argument's heap slot is its low 32 bits shifted
    /// right by this many bits.
    pub table_shift: [u32; 2],
}

/// One parameter of a local root signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalParameter {
    /// Root constants: `words` 32-bit values, the constant buffer `b register, space`.
    Constants {
        space: u32,
        register: u32,
        words: u32,
    },
    /// A root CBV, SRV or UAV: a 64-bit GPU address.
    Descriptor {
        class: ResourceClass,
        space: u32,
        register: u32,
    },
    /// A descriptor table.
    Table(Vec<LocalRange>),
}

/// One range of a local descriptor table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalRange {
    pub class: ResourceClass,
    pub space: u32,
    /// First register.
    pub register: u32,
    /// Registers in the range; `u32::MAX` when unbounded.
    pub count: u32,
    /// Offset of the range's first descriptor from the table's start, in descriptors (resolved: no `APPEND`).
    pub offset: u32,
}

/// Where a shader finds a resource that a local root signature holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LocalLocation {
    /// Root constants at record byte `offset`.
    Constants { offset: u32, words: u32 },
    /// A 64-bit address at record byte `offset`.
    Address { offset: u32 },
    /// A table whose descriptor handle is at record byte `offset`; the resource's first register is `slot`
    /// descriptors past the table's start.
    Table { offset: u32, slot: u32 },
}

/// Why a local root signature cannot describe a shader record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalRootSignatureError(pub String);

impl fmt::Display for LocalRootSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "local root signature: {}", self.0)
    }
}

impl std::error::Error for LocalRootSignatureError {}

fn class_of(r: dxil_rootsig::RangeType) -> ResourceClass {
    match r {
        dxil_rootsig::RangeType::Srv => ResourceClass::Srv,
        dxil_rootsig::RangeType::Uav => ResourceClass::Uav,
        dxil_rootsig::RangeType::Cbv => ResourceClass::Cbv,
        dxil_rootsig::RangeType::Sampler => ResourceClass::Sampler,
    }
}

impl LocalRootSignature {
    /// The parameters of a D3D12 root signature (one with `LOCAL_ROOT_SIGNATURE`, as in an RDAT subobject), table
    /// offsets resolved. Static samplers have no place in a shader record and are refused.
    pub fn from_root_signature(
        rs: &dxil_rootsig::RootSignature,
    ) -> Result<LocalRootSignature, LocalRootSignatureError> {
        use dxil_rootsig::RootParameterKind as K;
        if !rs.static_samplers.is_empty() {
            return Err(LocalRootSignatureError(
                "static samplers of a local root signature are not supported".into(),
            ));
        }
        let mut parameters = Vec::with_capacity(rs.parameters.len());
        for (i, p) in rs.parameters.iter().enumerate() {
            parameters.push(match &p.kind {
                K::Constants(c) => LocalParameter::Constants {
                    space: c.register_space,
                    register: c.shader_register,
                    words: c.num_32bit_values,
                },
                K::Cbv(d) | K::Srv(d) | K::Uav(d) => LocalParameter::Descriptor {
                    class: match p.kind.parameter_type() {
                        dxil_rootsig::ParameterType::Cbv => ResourceClass::Cbv,
                        dxil_rootsig::ParameterType::Srv => ResourceClass::Srv,
                        _ => ResourceClass::Uav,
                    },
                    space: d.register_space,
                    register: d.shader_register,
                },
                K::DescriptorTable(t) => {
                    let mut ranges = Vec::with_capacity(t.ranges.len());
                    for (r, offset) in t.ranges.iter().zip(t.resolved_offsets()) {
                        let offset = offset.ok_or_else(|| {
                            LocalRootSignatureError(format!(
                                "parameter {i}: a range appended after an unbounded range"
                            ))
                        })?;
                        ranges.push(LocalRange {
                            class: class_of(r.range_type),
                            space: r.register_space,
                            register: r.base_shader_register,
                            count: r.num_descriptors,
                            offset,
                        });
                    }
                    LocalParameter::Table(ranges)
                }
            });
        }
        Ok(LocalRootSignature {
            parameters,
            table_shift: [0, 0],
        })
    }

    /// The record byte offset of each parameter, and the record's size in bytes.
    pub fn layout(&self) -> (Vec<u32>, u32) {
        let mut offsets = Vec::with_capacity(self.parameters.len());
        let mut at = 0u32;
        for p in &self.parameters {
            match p {
                LocalParameter::Constants { words, .. } => {
                    offsets.push(at);
                    at = at.saturating_add(words.saturating_mul(4));
                }
                LocalParameter::Descriptor { .. } | LocalParameter::Table(_) => {
                    at = at.saturating_add(7) & !7;
                    offsets.push(at);
                    at = at.saturating_add(8);
                }
            }
        }
        (offsets, at)
    }

    /// Where the record holds the declared range `r`, if it does; an error where a parameter holds part of it or
    /// holds it in a way the shader cannot read (an array in a root descriptor).
    pub(crate) fn locate(&self, r: &D3dBinding) -> Result<Option<LocalLocation>, String> {
        let (offsets, _) = self.layout();
        let count = r.count.max(1);
        for (p, &offset) in self.parameters.iter().zip(&offsets) {
            match p {
                LocalParameter::Constants {
                    space,
                    register,
                    words,
                } if r.class == ResourceClass::Cbv
                    && *space == r.space
                    && *register == r.register =>
                {
                    return Ok(Some(LocalLocation::Constants {
                        offset,
                        words: *words,
                    }));
                }
                LocalParameter::Descriptor {
                    class,
                    space,
                    register,
                } if *class == r.class && *space == r.space && *register == r.register => {
                    if count != 1 {
                        return Err(format!("{r}: an array cannot be a local root descriptor"));
                    }
                    return Ok(Some(LocalLocation::Address { offset }));
                }
                LocalParameter::Table(ranges) => {
                    for range in ranges {
                        if range.class != r.class
                            || range.space != r.space
                            || r.register < range.register
                        {
                            continue;
                        }
                        let first = r.register - range.register;
                        if range.count != u32::MAX && first >= range.count {
                            continue;
                        }
                        if range.count != u32::MAX
                            && (r.count == u32::MAX || first.saturating_add(count) > range.count)
                        {
                            return Err(format!(
                                "{r}: the local root signature's table range holds only part of it"
                            ));
                        }
                        return Ok(Some(LocalLocation::Table {
                            offset,
                            slot: range.offset.saturating_add(first),
                        }));
                    }
                }
                _ => {}
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxil::ResourceKind;

    fn binding(class: ResourceClass, space: u32, register: u32, count: u32) -> D3dBinding {
        D3dBinding {
            class,
            kind: ResourceKind::Texture2D,
            space,
            register,
            count,
            range_id: 0,
        }
    }

    #[test]
    fn records_align_descriptors_and_tables_to_8_bytes() {
        let rs = dxil_rootsig::parse_hlsl(
            "RootConstants(num32BitConstants=3, b0), SRV(t0), RootConstants(num32BitConstants=1, b1), \
             DescriptorTable(SRV(t1, numDescriptors=2), UAV(u0, numDescriptors=unbounded, offset=5)), \
             CBV(b2)",
            &dxil_rootsig::ParseOptions::default(),
        )
        .unwrap();
        let l = LocalRootSignature::from_root_signature(&rs).unwrap();
        assert_eq!(l.layout(), (vec![0, 16, 24, 32, 40], 48));
        let at = |class, register, count| l.locate(&binding(class, 0, register, count)).unwrap();
        assert_eq!(
            at(ResourceClass::Cbv, 1, 1),
            Some(LocalLocation::Constants {
                offset: 24,
                words: 1
            })
        );
        assert_eq!(
            at(ResourceClass::Srv, 0, 1),
            Some(LocalLocation::Address { offset: 16 })
        );
        assert_eq!(
            at(ResourceClass::Cbv, 2, 1),
            Some(LocalLocation::Address { offset: 40 })
        );
        // t2 is the second descriptor of the table's first range; u3 the fourth of the unbounded range at 5.
        assert_eq!(
            at(ResourceClass::Srv, 2, 1),
            Some(LocalLocation::Table {
                offset: 32,
                slot: 1
            })
        );
        assert_eq!(
            at(ResourceClass::Uav, 3, u32::MAX),
            Some(LocalLocation::Table {
                offset: 32,
                slot: 8
            })
        );
        assert_eq!(at(ResourceClass::Srv, 3, 1), None);
        assert_eq!(at(ResourceClass::Sampler, 0, 1), None);
        // Part of a declared array outside the range, an array in a root descriptor.
        assert!(l.locate(&binding(ResourceClass::Srv, 0, 1, 3)).is_err());
        assert!(l.locate(&binding(ResourceClass::Srv, 0, 0, 2)).is_err());
    }

    #[test]
    fn static_samplers_have_no_place_in_a_record() {
        let rs =
            dxil_rootsig::parse_hlsl("StaticSampler(s0)", &dxil_rootsig::ParseOptions::default())
                .unwrap();
        let e = LocalRootSignature::from_root_signature(&rs).unwrap_err();
        assert!(e.to_string().contains("static samplers"), "{e}");
    }
}
