//! Version conversion between 1.0, 1.1 and 1.2.
//!
//! Up-conversion never loses anything: a 1.0 root signature means volatile descriptors and data
//! ([`DescriptorRangeFlags::implied_v1_0`], [`RootDescriptorFlags::IMPLIED_V1_0`]), which is
//! what DXC and the D3D12 runtime substitute, and 1.0/1.1 samplers have no flags.
//! Down-conversion is lossless only when the flags are exactly those defaults (to 1.0) and no
//! static sampler has flags (below 1.2); [`RootSignature::convert`] refuses otherwise, while
//! [`RootSignature::convert_lossy`] drops them the way DXC's `ConvertRootSignature` does.

use crate::binary::check_expressible;
use crate::error::Error;
use crate::model::*;

impl RootSignature {
    /// Converts to `target` without losing information, or explains what would be lost.
    pub fn convert(&self, target: Version) -> Result<RootSignature, Error> {
        let normalized = self.up_normalized();
        check_expressible(&normalized, target)?;
        let mut out = normalized;
        out.version = target;
        Ok(out)
    }

    /// Converts to `target`, dropping what the target cannot carry: range and root-descriptor
    /// flags become the 1.0 defaults when going to 1.0, sampler flags are cleared below 1.2.
    /// This is DXC's behaviour when it compiles an HLSL string for `rootsig_1_0`.
    pub fn convert_lossy(&self, target: Version) -> RootSignature {
        let mut out = self.up_normalized();
        if target == Version::V1_0 {
            set_implied_v1_0_flags(&mut out);
        }
        if target != Version::V1_2 {
            for sampler in &mut out.static_samplers {
                sampler.flags = SamplerFlags::NONE;
            }
        }
        out.version = target;
        out
    }

    /// A copy whose per-version fields hold what the version means (1.0 flags are the
    /// implied ones whatever the fields held).
    fn up_normalized(&self) -> RootSignature {
        let mut out = self.clone();
        if out.version == Version::V1_0 {
            set_implied_v1_0_flags(&mut out);
        }
        out
    }
}

fn set_implied_v1_0_flags(rs: &mut RootSignature) {
    for parameter in &mut rs.parameters {
        match &mut parameter.kind {
            RootParameterKind::DescriptorTable(table) => {
                for range in &mut table.ranges {
                    range.flags = DescriptorRangeFlags::implied_v1_0(range.range_type);
                }
            }
            RootParameterKind::Cbv(d) | RootParameterKind::Srv(d) | RootParameterKind::Uav(d) => {
                d.flags = RootDescriptorFlags::IMPLIED_V1_0;
            }
            RootParameterKind::Constants(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(version: Version, range_flags: DescriptorRangeFlags) -> RootSignature {
        RootSignature {
            version,
            flags: RootSignatureFlags::ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT,
            parameters: vec![
                RootParameter {
                    shader_visibility: ShaderVisibility::All,
                    kind: RootParameterKind::DescriptorTable(DescriptorTable {
                        ranges: vec![
                            DescriptorRange {
                                range_type: RangeType::Srv,
                                num_descriptors: 4,
                                base_shader_register: 0,
                                register_space: 0,
                                flags: range_flags,
                                offset_in_descriptors_from_table_start: APPEND,
                            },
                            DescriptorRange {
                                range_type: RangeType::Cbv,
                                num_descriptors: 1,
                                base_shader_register: 0,
                                register_space: 0,
                                flags: range_flags,
                                offset_in_descriptors_from_table_start: APPEND,
                            },
                        ],
                    }),
                },
                RootParameter {
                    shader_visibility: ShaderVisibility::Pixel,
                    kind: RootParameterKind::DescriptorTable(DescriptorTable {
                        ranges: vec![DescriptorRange {
                            range_type: RangeType::Sampler,
                            num_descriptors: 2,
                            base_shader_register: 0,
                            register_space: 0,
                            flags: range_flags & DescriptorRangeFlags::DESCRIPTORS_VOLATILE,
                            offset_in_descriptors_from_table_start: APPEND,
                        }],
                    }),
                },
                RootParameter {
                    shader_visibility: ShaderVisibility::All,
                    kind: RootParameterKind::Uav(RootDescriptor {
                        shader_register: 0,
                        register_space: 0,
                        flags: if range_flags.is_empty() {
                            RootDescriptorFlags::NONE
                        } else {
                            RootDescriptorFlags::DATA_VOLATILE
                        },
                    }),
                },
            ],
            static_samplers: vec![StaticSampler::hlsl_default(0)],
        }
    }

    #[test]
    fn v1_0_up_and_down_is_identity() {
        let implied =
            DescriptorRangeFlags::DESCRIPTORS_VOLATILE | DescriptorRangeFlags::DATA_VOLATILE;
        let v10 = sample(Version::V1_0, implied);
        let v11 = v10
            .convert(Version::V1_1)
            .expect("up-conversion is lossless");
        assert_eq!(v11.version, Version::V1_1);
        let RootParameterKind::DescriptorTable(t) = &v11.parameters[1].kind else {
            panic!("table expected")
        };
        // Samplers carry no data: only DESCRIPTORS_VOLATILE.
        assert_eq!(
            t.ranges[0].flags,
            DescriptorRangeFlags::DESCRIPTORS_VOLATILE
        );
        let v12 = v11.convert(Version::V1_2).expect("lossless");
        assert_eq!(v12.convert(Version::V1_0).expect("lossless"), v10);
        assert_eq!(v11.convert(Version::V1_0).expect("lossless"), v10);
    }

    #[test]
    fn down_conversion_refuses_to_lose_flags() {
        let v11 = sample(Version::V1_1, DescriptorRangeFlags::NONE);
        let err = v11
            .convert(Version::V1_0)
            .expect_err("flags 0 are not 1.0's defaults");
        assert!(
            err.to_string().contains("root parameter [0] range [0]"),
            "{err}"
        );
        // DXC's lossy path substitutes the defaults.
        let lossy = v11.convert_lossy(Version::V1_0);
        assert_eq!(
            lossy,
            sample(
                Version::V1_0,
                DescriptorRangeFlags::DESCRIPTORS_VOLATILE | DescriptorRangeFlags::DATA_VOLATILE
            )
        );
    }

    #[test]
    fn sampler_flags_need_v1_2() {
        let mut v12 = sample(Version::V1_2, DescriptorRangeFlags::NONE);
        v12.static_samplers[0].flags = SamplerFlags::UINT_BORDER_COLOR;
        let err = v12.convert(Version::V1_1).expect_err("flags would be lost");
        assert!(err.to_string().contains("static sampler [0]"), "{err}");
        let lossy = v12.convert_lossy(Version::V1_1);
        assert!(lossy.static_samplers[0].flags.is_empty());
        v12.static_samplers[0].flags = SamplerFlags::NONE;
        assert_eq!(
            v12.convert(Version::V1_1).expect("lossless"),
            sample(Version::V1_1, DescriptorRangeFlags::NONE)
        );
    }
}
