//! RTS0 payloads: reading (following offsets, bounds-checked) and writing (byte-exact with
//! DXC's serializer), plus the minimal DXBC part lookup needed to find an RTS0 part.
//!
//! Binary layout (all little-endian u32): a 24-byte header `{Version, NumParameters,
//! RootParametersOffset, NumStaticSamplers, StaticSamplersOffset, Flags}`; 12-byte parameter
//! records `{ParameterType, ShaderVisibility, PayloadOffset}`; payloads: table
//! `{NumDescriptorRanges, DescriptorRangesOffset}`, constants `{Register, Space, Num32BitValues}`,
//! root descriptor `{Register, Space[, Flags]}`; ranges of 20 bytes (1.0:
//! `{Type, Num, Base, Space, Offset}`) or 24 bytes (1.1+: `{Type, Num, Base, Space, Flags,
//! Offset}`); static samplers of 52 bytes (+ `Flags` in 1.2 = 56). Every offset counts from the
//! payload start. DXC writes header, parameter array, each parameter's payload in order (a
//! table's ranges right after its header), then the sampler array.

use crate::error::{Error, Region};
use crate::model::*;

const HEADER_SIZE: u64 = 24;
const PARAMETER_SIZE: u64 = 12;
const TABLE_SIZE: u64 = 8;
const CONSTANTS_SIZE: u64 = 12;

const fn range_size(version: Version) -> u64 {
    match version {
        Version::V1_0 => 20,
        Version::V1_1 | Version::V1_2 => 24,
    }
}

const fn root_descriptor_size(version: Version) -> u64 {
    match version {
        Version::V1_0 => 8,
        Version::V1_1 | Version::V1_2 => 12,
    }
}

const fn sampler_size(version: Version) -> u64 {
    match version {
        Version::V1_0 | Version::V1_1 => 52,
        Version::V1_2 => 56,
    }
}

/// Bounds-checked little-endian access to a byte slice; offsets are u64 so that sums of
/// untrusted u32 fields cannot overflow.
struct Bytes<'a> {
    bytes: &'a [u8],
    region: Region,
}

impl<'a> Bytes<'a> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Checks that `start..start + size` lies inside the bytes. An empty span is always fine:
    /// the offset of an empty array is never dereferenced.
    fn span(&self, start: u64, size: u64, what: impl FnOnce() -> String) -> Result<(), Error> {
        let end = start.saturating_add(size);
        if size != 0 && end > self.len() {
            return Err(Error::Truncated {
                what: what(),
                start,
                end,
                len: self.len(),
                region: self.region,
            });
        }
        Ok(())
    }

    fn u32_at(&self, offset: u64, what: impl FnOnce() -> String) -> Result<u32, Error> {
        self.span(offset, 4, what)?;
        // The span check makes both conversions and the slice access infallible.
        let start = usize::try_from(offset).map_err(|_| self.overflow(offset))?;
        let word = self
            .bytes
            .get(start..start + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .ok_or_else(|| self.overflow(offset))?;
        Ok(u32::from_le_bytes(word))
    }

    fn overflow(&self, offset: u64) -> Error {
        Error::Malformed {
            offset,
            region: self.region,
            message: "offset does not fit in memory".to_string(),
        }
    }

    fn malformed(&self, offset: u64, message: String) -> Error {
        Error::Malformed {
            offset,
            region: self.region,
            message,
        }
    }
}

/// Reads an RTS0 payload (the bytes after the RTS0 part header, or a raw DXR subobject
/// payload). Follows every offset, checks every access, and rejects codes D3D does not define.
/// Trailing bytes are ignored.
pub fn read_rts0(payload: &[u8]) -> Result<RootSignature, Error> {
    let b = Bytes {
        bytes: payload,
        region: Region::Rts0,
    };
    b.span(0, HEADER_SIZE, || "RTS0 header".to_string())?;
    let field = |offset: u64, name: &'static str| b.u32_at(offset, || name.to_string());
    let raw_version = field(0, "Version")?;
    let version = Version::from_u32(raw_version)
        .ok_or_else(|| b.malformed(0, format!("unknown root signature version {raw_version}")))?;
    let num_parameters = field(4, "NumParameters")?;
    let parameters_offset = u64::from(field(8, "RootParametersOffset")?);
    let num_samplers = field(12, "NumStaticSamplers")?;
    let samplers_offset = u64::from(field(16, "StaticSamplersOffset")?);
    let flags = RootSignatureFlags(field(20, "Flags")?);

    b.span(
        parameters_offset,
        u64::from(num_parameters) * PARAMETER_SIZE,
        || format!("root parameter array ({num_parameters} entries)"),
    )?;
    let sampler_stride = sampler_size(version);
    b.span(
        samplers_offset,
        u64::from(num_samplers) * sampler_stride,
        || format!("static sampler array ({num_samplers} entries)"),
    )?;

    // Tables may legally share one range array; without a budget a small payload could
    // make us decode (and allocate) quadratically many ranges.
    let mut range_budget = b.len() / range_size(version);
    // Both counts were bounded by the payload length above.
    let mut parameters = Vec::with_capacity(num_parameters as usize);
    for index in 0..u64::from(num_parameters) {
        let record = parameters_offset + index * PARAMETER_SIZE;
        let raw_type = b.u32_at(record, || format!("root parameter [{index}]"))?;
        let parameter_type = ParameterType::from_u32(raw_type).ok_or_else(|| {
            b.malformed(
                record,
                format!("root parameter [{index}]: unknown ParameterType {raw_type}"),
            )
        })?;
        let raw_visibility = b.u32_at(record + 4, || format!("root parameter [{index}]"))?;
        let shader_visibility = ShaderVisibility::from_u32(raw_visibility).ok_or_else(|| {
            b.malformed(
                record + 4,
                format!("root parameter [{index}]: unknown ShaderVisibility {raw_visibility}"),
            )
        })?;
        let at = u64::from(b.u32_at(record + 8, || format!("root parameter [{index}]"))?);
        let kind = match parameter_type {
            ParameterType::DescriptorTable => RootParameterKind::DescriptorTable(read_table(
                &b,
                version,
                index,
                at,
                &mut range_budget,
            )?),
            ParameterType::Constants32Bit => {
                b.span(at, CONSTANTS_SIZE, || {
                    format!("root constants of root parameter [{index}]")
                })?;
                let what = || format!("root constants of root parameter [{index}]");
                RootParameterKind::Constants(RootConstants {
                    shader_register: b.u32_at(at, what)?,
                    register_space: b.u32_at(at + 4, what)?,
                    num_32bit_values: b.u32_at(at + 8, what)?,
                })
            }
            ParameterType::Cbv | ParameterType::Srv | ParameterType::Uav => {
                let what = || format!("root descriptor of root parameter [{index}]");
                b.span(at, root_descriptor_size(version), what)?;
                let descriptor = RootDescriptor {
                    shader_register: b.u32_at(at, what)?,
                    register_space: b.u32_at(at + 4, what)?,
                    flags: match version {
                        Version::V1_0 => RootDescriptorFlags::IMPLIED_V1_0,
                        Version::V1_1 | Version::V1_2 => {
                            RootDescriptorFlags(b.u32_at(at + 8, what)?)
                        }
                    },
                };
                match parameter_type {
                    ParameterType::Cbv => RootParameterKind::Cbv(descriptor),
                    ParameterType::Srv => RootParameterKind::Srv(descriptor),
                    _ => RootParameterKind::Uav(descriptor),
                }
            }
        };
        parameters.push(RootParameter {
            shader_visibility,
            kind,
        });
    }

    let mut static_samplers = Vec::with_capacity(num_samplers as usize);
    for index in 0..u64::from(num_samplers) {
        static_samplers.push(read_sampler(
            &b,
            version,
            index,
            samplers_offset + index * sampler_stride,
        )?);
    }

    Ok(RootSignature {
        version,
        flags,
        parameters,
        static_samplers,
    })
}

fn read_table(
    b: &Bytes<'_>,
    version: Version,
    index: u64,
    at: u64,
    range_budget: &mut u64,
) -> Result<DescriptorTable, Error> {
    let what = || format!("descriptor table of root parameter [{index}]");
    b.span(at, TABLE_SIZE, what)?;
    let count = b.u32_at(at, what)?;
    let ranges_offset = u64::from(b.u32_at(at + 4, what)?);
    let stride = range_size(version);
    b.span(ranges_offset, u64::from(count) * stride, || {
        format!("descriptor ranges of root parameter [{index}] ({count} entries)")
    })?;
    *range_budget = range_budget.checked_sub(u64::from(count)).ok_or_else(|| {
        b.malformed(
            at,
            format!(
                "root parameter [{index}]: descriptor tables reference more ranges in total \
                 than the payload can hold"
            ),
        )
    })?;
    let mut ranges = Vec::with_capacity(count as usize);
    for r in 0..u64::from(count) {
        let base = ranges_offset + r * stride;
        let what = || format!("descriptor range [{r}] of root parameter [{index}]");
        let raw_type = b.u32_at(base, what)?;
        let range_type = RangeType::from_u32(raw_type).ok_or_else(|| {
            b.malformed(
                base,
                format!("root parameter [{index}] range [{r}]: unknown RangeType {raw_type}"),
            )
        })?;
        let num_descriptors = b.u32_at(base + 4, what)?;
        let base_shader_register = b.u32_at(base + 8, what)?;
        let register_space = b.u32_at(base + 12, what)?;
        let (flags, offset) = match version {
            Version::V1_0 => (
                DescriptorRangeFlags::implied_v1_0(range_type),
                b.u32_at(base + 16, what)?,
            ),
            Version::V1_1 | Version::V1_2 => (
                DescriptorRangeFlags(b.u32_at(base + 16, what)?),
                b.u32_at(base + 20, what)?,
            ),
        };
        ranges.push(DescriptorRange {
            range_type,
            num_descriptors,
            base_shader_register,
            register_space,
            flags,
            offset_in_descriptors_from_table_start: offset,
        });
    }
    Ok(DescriptorTable { ranges })
}

fn read_sampler(
    b: &Bytes<'_>,
    version: Version,
    index: u64,
    at: u64,
) -> Result<StaticSampler, Error> {
    let what = || format!("static sampler [{index}]");
    let word = |offset: u64| b.u32_at(at + offset, what);
    fn decode<T>(
        b: &Bytes<'_>,
        at: u64,
        value: u32,
        index: u64,
        field: &str,
        from: fn(u32) -> Option<T>,
    ) -> Result<T, Error> {
        from(value).ok_or_else(|| {
            b.malformed(
                at,
                format!("static sampler [{index}]: unknown {field} {value:#x}"),
            )
        })
    }
    Ok(StaticSampler {
        filter: decode(b, at, word(0)?, index, "Filter", Filter::from_u32)?,
        address_u: decode(
            b,
            at + 4,
            word(4)?,
            index,
            "AddressU",
            TextureAddressMode::from_u32,
        )?,
        address_v: decode(
            b,
            at + 8,
            word(8)?,
            index,
            "AddressV",
            TextureAddressMode::from_u32,
        )?,
        address_w: decode(
            b,
            at + 12,
            word(12)?,
            index,
            "AddressW",
            TextureAddressMode::from_u32,
        )?,
        mip_lod_bias: f32::from_bits(word(16)?),
        max_anisotropy: word(20)?,
        comparison_func: decode(
            b,
            at + 24,
            word(24)?,
            index,
            "ComparisonFunc",
            ComparisonFunc::from_u32,
        )?,
        border_color: decode(
            b,
            at + 28,
            word(28)?,
            index,
            "BorderColor",
            StaticBorderColor::from_u32,
        )?,
        min_lod: f32::from_bits(word(32)?),
        max_lod: f32::from_bits(word(36)?),
        shader_register: word(40)?,
        register_space: word(44)?,
        shader_visibility: decode(
            b,
            at + 48,
            word(48)?,
            index,
            "ShaderVisibility",
            ShaderVisibility::from_u32,
        )?,
        flags: match version {
            Version::V1_2 => SamplerFlags(word(52)?),
            Version::V1_0 | Version::V1_1 => SamplerFlags::NONE,
        },
    })
}

/// Checks that `rs` says nothing its version cannot carry, so that writing loses nothing.
pub(crate) fn check_expressible(rs: &RootSignature, version: Version) -> Result<(), Error> {
    if version == Version::V1_0 {
        for (index, parameter) in rs.parameters.iter().enumerate() {
            match &parameter.kind {
                RootParameterKind::DescriptorTable(table) => {
                    for (r, range) in table.ranges.iter().enumerate() {
                        let implied = DescriptorRangeFlags::implied_v1_0(range.range_type);
                        if range.flags != implied {
                            return Err(Error::lossy_version(
                                version,
                                format!(
                                    "root parameter [{index}] range [{r}] has flags {:?}; \
                                     version 1.0 implies {:?}",
                                    range.flags, implied
                                ),
                            ));
                        }
                    }
                }
                RootParameterKind::Cbv(d)
                | RootParameterKind::Srv(d)
                | RootParameterKind::Uav(d) => {
                    if d.flags != RootDescriptorFlags::IMPLIED_V1_0 {
                        return Err(Error::lossy_version(
                            version,
                            format!(
                                "root parameter [{index}] has flags {:?}; version 1.0 implies {:?}",
                                d.flags,
                                RootDescriptorFlags::IMPLIED_V1_0
                            ),
                        ));
                    }
                }
                RootParameterKind::Constants(_) => {}
            }
        }
    }
    let flagged = rs.static_samplers.iter().position(|s| !s.flags.is_empty());
    if let (true, Some(index)) = (version != Version::V1_2, flagged) {
        return Err(Error::lossy_version(
            version,
            format!("static sampler [{index}] has flags, which need version 1.2"),
        ));
    }
    Ok(())
}

fn put(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn patch(out: &mut [u8], at: usize, value: u32) {
    if let Some(slot) = out.get_mut(at..at + 4) {
        slot.copy_from_slice(&value.to_le_bytes());
    }
}

fn offset_u32(len: usize) -> Result<u32, Error> {
    u32::try_from(len).map_err(|_| Error::Lossy {
        target: "RTS0".to_string(),
        reason: "the payload would exceed 4 GiB".to_string(),
    })
}

/// Serializes `rs` as an RTS0 payload of `rs.version`, laid out exactly as DXC does. Fails
/// when the model holds something the version cannot carry (see [`RootSignature::convert`]).
pub fn write_rts0(rs: &RootSignature) -> Result<Vec<u8>, Error> {
    let version = rs.version;
    check_expressible(rs, version)?;
    let num_parameters = offset_u32(rs.parameters.len())?;
    let num_samplers = offset_u32(rs.static_samplers.len())?;

    let mut out = Vec::with_capacity(encoded_size(rs));
    put(&mut out, version.to_u32());
    put(&mut out, num_parameters);
    put(&mut out, HEADER_SIZE as u32);
    put(&mut out, num_samplers);
    put(&mut out, 0); // StaticSamplersOffset, patched below
    put(&mut out, rs.flags.bits());
    let records = out.len();
    for parameter in &rs.parameters {
        put(&mut out, parameter.kind.parameter_type().to_u32());
        put(&mut out, parameter.shader_visibility.to_u32());
        put(&mut out, 0); // PayloadOffset, patched below
    }
    for (index, parameter) in rs.parameters.iter().enumerate() {
        let payload_offset = offset_u32(out.len())?;
        patch(
            &mut out,
            records + index * PARAMETER_SIZE as usize + 8,
            payload_offset,
        );
        match &parameter.kind {
            RootParameterKind::DescriptorTable(table) => {
                put(&mut out, offset_u32(table.ranges.len())?);
                let ranges_offset = offset_u32(out.len() + 4)?;
                put(&mut out, ranges_offset);
                for range in &table.ranges {
                    put(&mut out, range.range_type.to_u32());
                    put(&mut out, range.num_descriptors);
                    put(&mut out, range.base_shader_register);
                    put(&mut out, range.register_space);
                    if version != Version::V1_0 {
                        put(&mut out, range.flags.bits());
                    }
                    put(&mut out, range.offset_in_descriptors_from_table_start);
                }
            }
            RootParameterKind::Constants(c) => {
                put(&mut out, c.shader_register);
                put(&mut out, c.register_space);
                put(&mut out, c.num_32bit_values);
            }
            RootParameterKind::Cbv(d) | RootParameterKind::Srv(d) | RootParameterKind::Uav(d) => {
                put(&mut out, d.shader_register);
                put(&mut out, d.register_space);
                if version != Version::V1_0 {
                    put(&mut out, d.flags.bits());
                }
            }
        }
    }
    let samplers_offset = offset_u32(out.len())?;
    patch(&mut out, 16, samplers_offset);
    for s in &rs.static_samplers {
        put(&mut out, s.filter.to_u32());
        put(&mut out, s.address_u.to_u32());
        put(&mut out, s.address_v.to_u32());
        put(&mut out, s.address_w.to_u32());
        put(&mut out, s.mip_lod_bias.to_bits());
        put(&mut out, s.max_anisotropy);
        put(&mut out, s.comparison_func.to_u32());
        put(&mut out, s.border_color.to_u32());
        put(&mut out, s.min_lod.to_bits());
        put(&mut out, s.max_lod.to_bits());
        put(&mut out, s.shader_register);
        put(&mut out, s.register_space);
        put(&mut out, s.shader_visibility.to_u32());
        if version == Version::V1_2 {
            put(&mut out, s.flags.bits());
        }
    }
    offset_u32(out.len())?;
    Ok(out)
}

/// Size in bytes of the payload [`write_rts0`] produces.
fn encoded_size(rs: &RootSignature) -> usize {
    let v = rs.version;
    let mut size = HEADER_SIZE + PARAMETER_SIZE * rs.parameters.len() as u64;
    for parameter in &rs.parameters {
        size += match &parameter.kind {
            RootParameterKind::DescriptorTable(t) => {
                TABLE_SIZE + range_size(v) * t.ranges.len() as u64
            }
            RootParameterKind::Constants(_) => CONSTANTS_SIZE,
            _ => root_descriptor_size(v),
        };
    }
    size += sampler_size(v) * rs.static_samplers.len() as u64;
    usize::try_from(size).unwrap_or(usize::MAX)
}

/// FourCC of the root signature part.
pub const RTS0: [u8; 4] = *b"RTS0";

/// Finds a part in a DXBC container: returns the payload's byte offset in the container and
/// the payload, or `None` when no part has that FourCC. Checks the header, the part offset
/// table and every part header against the container's length; the digest is not checked.
///
/// Container layout: `"DXBC"`, 16-byte digest, u16 major, u16 minor, u32 total size,
/// u32 part count, u32 part offsets; each part is `{FourCC, u32 size, payload}`.
pub fn find_part(container: &[u8], fourcc: [u8; 4]) -> Result<Option<(usize, &[u8])>, Error> {
    let b = Bytes {
        bytes: container,
        region: Region::Container,
    };
    b.span(0, 32, || "DXBC container header".to_string())?;
    if container.get(0..4) != Some(b"DXBC".as_slice()) {
        return Err(b.malformed(0, "not a DXBC container (bad magic)".to_string()));
    }
    let count = b.u32_at(28, || "part count".to_string())?;
    b.span(32, u64::from(count) * 4, || {
        format!("part offset table ({count} entries)")
    })?;
    for index in 0..u64::from(count) {
        let part = u64::from(b.u32_at(32 + 4 * index, || "part offset table".to_string())?);
        b.span(part, 8, || format!("header of part [{index}]"))?;
        let size = b.u32_at(part + 4, || format!("header of part [{index}]"))?;
        b.span(part + 8, u64::from(size), || {
            format!("payload of part [{index}]")
        })?;
        // Both spans were checked against the slice length, so these fit in usize.
        let start = part as usize;
        if container.get(start..start + 4) == Some(fourcc.as_slice()) {
            let payload_start = start + 8;
            let payload = container
                .get(payload_start..payload_start + size as usize)
                .ok_or_else(|| b.overflow(part))?;
            return Ok(Some((payload_start, payload)));
        }
    }
    Ok(None)
}

impl RootSignature {
    /// Reads an RTS0 payload; see [`read_rts0`].
    pub fn from_rts0(payload: &[u8]) -> Result<RootSignature, Error> {
        read_rts0(payload)
    }

    /// Reads the RTS0 part of a DXBC container (a standalone root signature blob or a shader
    /// that embeds one). Error offsets count from the container start.
    pub fn from_container(container: &[u8]) -> Result<RootSignature, Error> {
        let (offset, payload) = find_part(container, RTS0)?.ok_or(Error::NoRootSignature)?;
        read_rts0(payload).map_err(|e| e.in_container(offset as u64))
    }

    /// Serializes as an RTS0 payload of `self.version`; see [`write_rts0`]. To produce a
    /// standalone blob, wrap the payload in a container with a single `RTS0` part.
    pub fn to_rts0_bytes(&self) -> Result<Vec<u8>, Error> {
        write_rts0(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    const NONE_: u32 = 0xffff_ffff;

    /// binding-model.md §1.3: `DescriptorTable(CBV(b1, space=7), SRV(t16, numDescriptors=8),
    /// UAV(u3, numDescriptors=unbounded, offset=44))` serialized as version 1.0.
    fn worked_example_v1_0() -> Vec<u8> {
        words(&[
            1, 1, 0x18, 0, 0x68, 0, // header
            0, 0, 0x24, // parameter 0: table, visibility ALL, payload at 0x24
            3, 0x2c, // table: 3 ranges at 0x2c
            2, 1, 1, 7, NONE_, // CBV b1 space7, APPEND
            0, 8, 16, 0, NONE_, // SRV t16..t23, APPEND
            1, NONE_, 3, 0, 44, // UAV u3.. unbounded, offset 44
        ])
    }

    /// The same as version 1.1: ranges are 24 bytes, flags 0 inserted before the offset.
    fn worked_example_v1_1() -> Vec<u8> {
        words(&[
            2, 1, 0x18, 0, 0x74, 0, // header: samplers (none) at 0x74
            0, 0, 0x24, // parameter 0
            3, 0x2c, // table
            2, 1, 1, 7, 0, NONE_, // CBV
            0, 8, 16, 0, 0, NONE_, // SRV
            1, NONE_, 3, 0, 0, 44, // UAV
        ])
    }

    #[test]
    fn worked_example_v1_0_round_trips() {
        let bytes = worked_example_v1_0();
        let rs = read_rts0(&bytes).expect("reads");
        assert_eq!(rs.version, Version::V1_0);
        assert_eq!(rs.parameters.len(), 1);
        let RootParameterKind::DescriptorTable(table) = &rs.parameters[0].kind else {
            panic!("expected a table, got {:?}", rs.parameters[0].kind);
        };
        assert_eq!(table.ranges.len(), 3);
        assert_eq!(table.ranges[0].range_type, RangeType::Cbv);
        assert_eq!(table.ranges[0].register_space, 7);
        assert_eq!(
            table.ranges[0].flags,
            DescriptorRangeFlags::DESCRIPTORS_VOLATILE | DescriptorRangeFlags::DATA_VOLATILE
        );
        assert_eq!(table.ranges[1].num_descriptors, 8);
        assert_eq!(table.ranges[1].base_shader_register, 16);
        assert!(table.ranges[2].is_unbounded());
        assert_eq!(table.ranges[2].offset_in_descriptors_from_table_start, 44);
        assert_eq!(write_rts0(&rs).expect("writes"), bytes);
    }

    #[test]
    fn worked_example_v1_1_round_trips() {
        let bytes = worked_example_v1_1();
        let rs = read_rts0(&bytes).expect("reads");
        assert_eq!(rs.version, Version::V1_1);
        let RootParameterKind::DescriptorTable(table) = &rs.parameters[0].kind else {
            panic!("expected a table");
        };
        assert!(table.ranges.iter().all(|r| r.flags.is_empty()));
        assert_eq!(table.ranges[2].offset_in_descriptors_from_table_start, 44);
        assert_eq!(write_rts0(&rs).expect("writes"), bytes);
    }

    #[test]
    fn reader_follows_offsets_in_any_order() {
        // Parameter payloads placed before the parameter array, samplers in the middle.
        let mut bytes = words(&[
            2, 2, 0x40, 1, 0, 0x4, // header (StaticSamplersOffset patched below)
        ]);
        // 0x18: constants payload of parameter 1
        bytes.extend(words(&[3, 4, 5]));
        // 0x24: root UAV payload of parameter 0
        bytes.extend(words(&[9, 1, 0x8]));
        // 0x30: padding up to 0x40
        bytes.extend(words(&[0xabab_abab; 4]));
        // 0x40: parameter array
        bytes.extend(words(&[4, 5, 0x24, 1, 0, 0x18]));
        // 0x58: one static sampler
        let sampler_at = bytes.len() as u32;
        bytes.extend(words(&[
            0x15,
            3,
            3,
            3,
            0.5f32.to_bits(),
            1,
            4,
            2,
            0,
            f32::MAX.to_bits(),
            2,
            0,
            5,
        ]));
        bytes[16..20].copy_from_slice(&sampler_at.to_le_bytes());
        let rs = read_rts0(&bytes).expect("reads");
        assert_eq!(rs.flags, RootSignatureFlags::DENY_HULL_SHADER_ROOT_ACCESS);
        assert_eq!(rs.parameters[0].shader_visibility, ShaderVisibility::Pixel);
        assert_eq!(
            rs.parameters[0].kind,
            RootParameterKind::Uav(RootDescriptor {
                shader_register: 9,
                register_space: 1,
                flags: RootDescriptorFlags::DATA_STATIC,
            })
        );
        assert_eq!(
            rs.parameters[1].kind,
            RootParameterKind::Constants(RootConstants {
                shader_register: 3,
                register_space: 4,
                num_32bit_values: 5,
            })
        );
        assert_eq!(rs.static_samplers[0].filter, Filter::MinMagMipLinear);
        assert_eq!(rs.static_samplers[0].mip_lod_bias, 0.5);
        // Re-writing yields DXC's canonical layout, which reads back to the same model.
        let canonical = write_rts0(&rs).expect("writes");
        assert_ne!(canonical, bytes);
        assert_eq!(read_rts0(&canonical).expect("reads back"), rs);
    }

    #[test]
    fn v1_2_sampler_flags_round_trip() {
        let mut rs = RootSignature::new(Version::V1_2);
        let mut s = StaticSampler::hlsl_default(3);
        s.flags = SamplerFlags::NON_NORMALIZED_COORDINATES;
        rs.static_samplers.push(s);
        let bytes = write_rts0(&rs).expect("writes");
        assert_eq!(bytes.len(), 24 + 56);
        assert_eq!(&bytes[24 + 52..], &2u32.to_le_bytes());
        assert_eq!(read_rts0(&bytes).expect("reads"), rs);
        // Version 1.1 has no place for the flags.
        rs.version = Version::V1_1;
        assert!(matches!(write_rts0(&rs), Err(Error::Lossy { .. })));
    }

    #[test]
    fn truncation_is_reported_with_offsets() {
        let bytes = worked_example_v1_0();
        for len in 0..bytes.len() {
            let err = read_rts0(&bytes[..len]).expect_err("truncated input must fail");
            assert!(
                matches!(err, Error::Truncated { .. }),
                "length {len}: unexpected {err}"
            );
        }
        let err = read_rts0(&bytes[..0x30]).expect_err("fails");
        assert_eq!(
            err.to_string(),
            "descriptor ranges of root parameter [0] (3 entries) needs bytes 0x2c..0x68 of the \
             RTS0 payload, which is only 0x30 bytes long"
        );
    }

    #[test]
    fn bad_codes_are_reported_with_offsets() {
        let mut bytes = worked_example_v1_0();
        bytes[0x2c] = 7; // range type
        assert_eq!(
            read_rts0(&bytes).expect_err("fails").to_string(),
            "RTS0 payload byte 0x2c: root parameter [0] range [0]: unknown RangeType 7"
        );
        let mut bytes = worked_example_v1_0();
        bytes[0] = 9;
        assert!(
            read_rts0(&bytes)
                .expect_err("fails")
                .to_string()
                .contains("unknown root signature version 9")
        );
    }

    #[test]
    fn shared_range_arrays_are_bounded() {
        // 200 tables all pointing at one array of 8 ranges: more ranges than the payload holds.
        let params = 200u32;
        let ranges_at = 24 + 12 * params + 8;
        let mut bytes = words(&[2, params, 24, 0, 0, 0]);
        for _ in 0..params {
            bytes.extend(words(&[0, 0, 24 + 12 * params]));
        }
        bytes.extend(words(&[8, ranges_at]));
        for _ in 0..8 {
            bytes.extend(words(&[0, 1, 0, 0, 0, 0]));
        }
        let err = read_rts0(&bytes).expect_err("fails");
        assert!(err.to_string().contains("more ranges in total"), "{err}");
    }

    #[test]
    fn container_lookup() {
        let payload = worked_example_v1_0();
        let mut container = b"DXBC".to_vec();
        container.extend([0u8; 16]);
        container.extend(1u16.to_le_bytes());
        container.extend(0u16.to_le_bytes());
        let total = 32 + 4 + 8 + payload.len();
        container.extend((total as u32).to_le_bytes());
        container.extend(1u32.to_le_bytes());
        container.extend(36u32.to_le_bytes());
        container.extend(b"RTS0");
        container.extend((payload.len() as u32).to_le_bytes());
        container.extend(&payload);
        let (offset, found) = find_part(&container, RTS0).expect("ok").expect("found");
        assert_eq!(offset, 44);
        assert_eq!(found, payload.as_slice());
        let rs = RootSignature::from_container(&container).expect("reads");
        assert_eq!(write_rts0(&rs).expect("writes"), payload);
        // Errors inside the part are reported at container offsets.
        container[44 + 0x2c] = 7;
        let err = RootSignature::from_container(&container).expect_err("fails");
        assert_eq!(
            err,
            Error::Malformed {
                offset: 44 + 0x2c,
                region: Region::Container,
                message: "root parameter [0] range [0]: unknown RangeType 7".to_string()
            }
        );
        assert_eq!(find_part(&container, *b"DXIL").expect("ok"), None);
        container[0] = b'X';
        assert!(find_part(&container, RTS0).is_err());
    }
}
