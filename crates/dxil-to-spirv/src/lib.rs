//! DXIL → SPIR-V translation (compute, vertex, pixel, geometry, hull, domain, mesh and amplification shaders, and
//! the ray-tracing shaders of libraries).
//!
//! [`translate`] takes a DXIL module (read with `dxil_module::read_module`) and [`Options`] and returns a Vulkan
//! SPIR-V module plus everything a runtime needs to run it without reflection: the entry point, the stage, the
//! thread-group size, the wave size range, the tessellation state and the descriptor bindings it expects
//! ([`Translation`]).
//! [`translate_container`] does the same from container bytes; [`Translator`] keeps its buffers between calls for
//! batch use ([`Translator::compile`] is the one translation path: the `dxil` tool, the runtime and the C API of
//! `dxil-spirv-c` all come through it); [`disassemble`] prints the words as text.
//!
//! # The library API
//! * Where resources go: [`Options::binding`], a [`BindingModel`]: the default register shifts
//!   ([`RegisterBindings`]), a D3D12 root signature's layout ([`RootSignatureBindings`]), or a caller's
//!   [`BindingResolver`] — the runtime answers per resource, the way vkd3d-proton's remap callbacks do — through
//!   [`ResolverBindings`] (root block shape [`RootBlock`], device-wide heap conventions [`HeapConventions`]).
//! * What the device offers ([`Features`]) and what the caller asks of the generated code ([`Requests`]): every
//!   option kind of dxil-spirv's C API has a typed home in [`options`]; a request the translator cannot honour, or a
//!   translation needing a feature the device lacks, fails with [`Error::Option`].
//!
//! # Pieces
//! * [`cfg`](mod@cfg): turns each function's reducible CFG into SPIR-V structured control flow.
//! * `lower`: the instruction lowering. Each LLVM block becomes one or more *virtual blocks*: instructions that
//!   need control flow of their own (bounds-checked stores and atomics, the per-value loops of `WaveMatch` and
//!   `WaveMultiPrefix*`) split their block, so the structurizer sees and nests that control flow like any other.
//!   Those loops run the wave operation inside the loop, before the latch: at a loop's merge devices may
//!   reconverge the lanes of every iteration (NVIDIA does), so an operation there would see all partitions.
//!   Values whose definition no longer dominates a use after structurization are demoted to `Function`
//!   variables; phis stay `OpPhi` where the structurizer allows it.
//! * [`binding`]: the pluggable binding model (default: register shifts b 0, t 100, u 200, s 300, set = space;
//!   [`RootSignatureBindings`]: a D3D12 root signature's Vulkan layout, following the binding contract of
//!   `dxil_rootsig::contract` that the runtime binds — descriptor tables as heap-array slots indexed from the root
//!   block, root constants, root CBV/SRV/UAV through buffer device addresses (`PhysicalStorageBuffer64`, SPIR-V 1.5,
//!   Vulkan 1.2), static samplers, SM 6.6 heap indexing, view windows from the offset buffer, UAV counters through
//!   the counter address table, a root block spilled into a uniform buffer).
//! * `spv`: a direct SPIR-V word emitter with interned types and constants.
//! * `lower::stage`: what differs per stage (execution model and modes, interface, stage operations), one file per
//!   stage (compute, vertex, pixel, geometry, hull, domain, mesh, ray tracing; below).
//!
//! # Graphics stages
//! Vertex (`Vertex`), pixel (`Fragment`), geometry (`Geometry`), hull (`TessellationControl`) and domain
//! (`TessellationEvaluation`) entry points take their interface from the entry
//! point's signatures (`dxil_shader::DxilModule`): every signature element is one `Input`/`Output` variable,
//! declared whether or not the shader touches it, so that the interfaces of stages translated here match.
//! * A user element is at `Location` = its start row, `Component` = its start column (none when 0); a vector of
//!   its columns, an array over its rows when it has several (a dynamic row index in `loadInput`/`storeOutput`
//!   indexes it). `SV_Target` n is `Location` n. 32-bit float, signed and unsigned elements keep their class;
//!   16-bit elements are 32-bit in the interface and converted at each access; 64-bit elements are unsupported.
//! * Pixel shader inputs: `nointerpolation` → `Flat` (also every integer input, as Vulkan requires), `centroid`
//!   → `Centroid`, `noperspective` → `NoPerspective`, `sample` → `Sample`. Pull-model `EvaluateAttributeSnapped`
//!   / `AtSample` / `Centroid` → `InterpolateAtOffset` (the 4-bit signed offsets in 1/16 pixel) / `AtSample` /
//!   `AtCentroid`. An input that `GetAttributeAtVertex` reads is an array over the triangle's three vertices
//!   decorated `PerVertexKHR` (`SPV_KHR_fragment_shader_barycentric`); a plain read of it is D3D's
//!   `nointerpolation` value, the first (provoking) vertex.
//! * Geometry shader inputs are arrays over the input primitive's vertices (`loadInput`'s vertex operand).
//! * Control points are arrays too: hull shader inputs over 32 control points (D3D's largest patch: a draw may use
//!   patches of another size than the shader declares), hull shader outputs over its output control points
//!   (indexed by `InvocationId` in `storeOutput`, by the operand of `LoadOutputControlPoint`), domain shader inputs
//!   over its input control points. Between hull and domain shaders every element is a location, system values
//!   included. Patch constants are `Patch` variables: `SV_TessFactor` / `SV_InsideTessFactor` are
//!   `TessLevelOuter` / `TessLevelInner` (D3D's edge orders are Vulkan's; for isolines the line density, then
//!   the line detail), the others locations after the rows of the control-point signature
//!   ([`Tessellation::patch_location_offset`], [`Options::patch_location_offset`]). Control-point elements of
//!   several rows that start at a column other than 0 get one variable per row (older `spirv-val` rejects
//!   `Component` on an array of arrays).
//!
//! | System value | Stage, direction | SPIR-V |
//! |---|---|---|
//! | `SV_Position` | VS/GS output, GS input | `Position` |
//! | `SV_Position` | PS input | `FragCoord`; `.w` read as `1 / FragCoord.w` (D3D gives clip-space w) |
//! | `SV_VertexID`, `SV_InstanceID` | VS input | `VertexIndex − BaseVertex`, `InstanceIndex − BaseInstance`: D3D counts from the draw's first vertex / instance, Vulkan includes the base (`DrawParameters`) |
//! | `StartVertexLocation()`, `StartInstanceLocation()` (SM 6.8) | VS | `BaseVertex`, `BaseInstance` |
//! | `SV_ClipDistance`, `SV_CullDistance` | VS/GS output, GS/PS input | one `ClipDistance` / `CullDistance` float array per kind, elements concatenated in semantic-index order (at most 8 in all) |
//! | `SV_RenderTargetArrayIndex`, `SV_ViewportArrayIndex` | VS/DS/GS output, PS input | `Layer`, `ViewportIndex` (VS, DS: `SPV_EXT_shader_viewport_index_layer`); a VS or DS also writes the value to the element's location, which is where a GS reads it (Vulkan geometry shaders have no such input built-ins) |
//! | `SV_PrimitiveID` | GS output, PS input; GS `PrimitiveID()` | `PrimitiveId` |
//! | `SV_GSInstanceID` | GS | `InvocationId` |
//! | `SV_OutputControlPointID` | HS | `InvocationId` |
//! | `SV_PrimitiveID` | HS, DS (`PrimitiveID()`) | `PrimitiveId` |
//! | `SV_DomainLocation` | DS (`DomainLocation()`) | `TessCoord` (tri: `u, v, w`; quad, isoline: `u, v`) |
//! | `SV_TessFactor`, `SV_InsideTessFactor` | HS patch constant output, DS patch constant input | `TessLevelOuter`, `TessLevelInner` |
//! | `SV_IsFrontFace` | PS input | `FrontFacing`, read as `0xFFFFFFFF` / 0 |
//! | `SV_SampleIndex` | PS | `SampleId` |
//! | `SV_Coverage` | PS input (`Coverage()`), output | `SampleMask[0]` |
//! | `SV_InnerCoverage` | PS | `FullyCoveredEXT` (`SPV_EXT_fragment_fully_covered`) |
//! | `SV_Depth`, `SV_DepthLessEqual`, `SV_DepthGreaterEqual` | PS output | `FragDepth` with `DepthReplacing` (and `DepthLess` / `DepthGreater`) |
//! | `SV_StencilRef` | PS output | `FragStencilRefEXT`, `StencilRefReplacingEXT` |
//! | `SV_Barycentrics` | PS input | `BaryCoordKHR`, `BaryCoordNoPerspKHR` for `noperspective` (`SPV_KHR_fragment_shader_barycentric`) |
//! | `SV_ShadingRate` | VS/GS output, PS input | `PrimitiveShadingRateKHR`, `ShadingRateKHR` (D3D12's encoding is Vulkan's) |
//! | `SV_ViewID` | every graphics stage, mesh shaders | `ViewIndex` |
//!
//! Pixel shaders run with `OriginUpperLeft`, and `EarlyFragmentTests` when the shader flags force early depth and
//! stencil. `discard` is `OpDemoteToHelperInvocation` (SPIR-V 1.6, or `SPV_EXT_demote_to_helper_invocation`
//! before): a discarded D3D pixel goes on as a helper, so the derivatives of its quad stay defined, which
//! `OpKill` would not keep; `IsHelperLane()` is then `OpIsHelperInvocationEXT`. Pixel shaders have quads of their
//! own (derivatives, implicit-LOD sampling, quad operations); the other graphics stages have none (derivatives 0,
//! sampling at level 0). Geometry shaders get the input primitive (`InputPoints` … `InputTrianglesAdjacency`),
//! `OutputVertices` = `maxvertexcount`, `Invocations` = `[instance(n)]` and the output topology (a list topology is
//! the matching strip: D3D output streams are strips); `EmitStream` / `CutStream` are `OpEmitVertex` /
//! `OpEndPrimitive`, or the stream forms with `GeometryStreams` when a stream other than 0 is active. Elements of
//! streams other than 0 are not rasterized: they are plain locations numbered after the rows of the streams
//! before them (system values included). Hull shaders run the control-point function, then, after a barrier, the
//! patch constant function on invocation 0 (D3D runs it once per patch, after every control point); they declare
//! the domain (`Triangles` / `Quads` / `Isolines`), the spacing (`integer` and `pow2`: `SpacingEqual`; the
//! fractional ones), the vertex order (`triangle_cw` is `VertexOrderCw`: D3D's domain has its origin at the top
//! left, as Vulkan's default) or `PointMode`, and `OutputVertices`; domain shaders declare the domain.
//! Resources, UAV writes from any stage and both binding models work as in compute shaders.
//!
//! `GetRenderTargetSampleCount()` reads the rasterizer's sample count from a specialization constant (`SpecId` 0,
//! 1 unless the pipeline sets it; [`Requests::rasterizer_sample_count`], reported in [`Translation::sample_count_spec_id`]), as
//! dxil-spirv does; `GetRenderTargetSamplePosition(i)` is entry `i` of D3D's standard pattern for that count.
//!
//! Not supported in these stages (errors naming the element or operation): 64-bit signature elements, system
//! values with several rows other than clip/cull distances, more than 8 clip and cull distances, control-point
//! patch inputs to geometry shaders, `GetAttributeAtVertex` on system values. Sampler feedback is emulated (see
//! "Sampler feedback" below).
//!
//! # Input the translation refuses
//! A module that reads fine may still break DXIL rules the SPIR-V side cannot express; it fails with
//! [`Error::Invalid`] or [`Error::Metadata`] naming the instruction or element, never with a module the validator
//! rejects: a `dx.op` call whose opcode is not of the callee's class, whose overload the operation lacks
//! (`DerivCoarseX` on doubles) or that the stage may not use (`Discard` in a compute shader; the stages of DXIL's
//! operation table), groupshared memory outside compute, mesh and amplification shaders, and signature elements
//! sharing a location component or a built-in. Dual-source blending
//! (`SV_Target0`/`1` as the two sources of attachment 0, decided by the blend state, not the shader) is a request
//! ([`Requests::dual_source_blending`]): `SV_Target1` is then `Location` 0, `Index` 1; without it, `Location` 1.
//! [`Requests::invariant_position`] decorates the position output `Invariant`. Stages not translated fail with
//! [`Error::Stage`] naming the stage.
//!
//! # Mesh and amplification shaders
//! Mesh shaders are `MeshEXT`, amplification shaders `TaskEXT` (`SPV_EXT_mesh_shader`, SPIR-V 1.4), with
//! `LocalSize` = `numthreads`, and for mesh shaders `OutputVertices` / `OutputPrimitivesEXT` = the maximum vertex
//! and primitive counts and `OutputTrianglesEXT` / `OutputLinesEXT`.
//! * Vertex outputs are arrays over the vertices, per-primitive outputs (the primitive signature) arrays over the
//!   primitives decorated `PerPrimitiveEXT`: `SV_PrimitiveID` → `PrimitiveId`, `SV_RenderTargetArrayIndex` →
//!   `Layer`, `SV_ViewportArrayIndex` → `ViewportIndex`, `SV_CullPrimitive` → `CullPrimitiveEXT`, `SV_ShadingRate`
//!   → `PrimitiveShadingRateKHR`; user elements are placed after the rows of the vertex outputs (DXIL packs both
//!   signatures from row 0). `EmitIndices` → `PrimitiveTriangleIndicesEXT` / `PrimitiveLineIndicesEXT`;
//!   `SetMeshOutputCounts` → `OpSetMeshOutputsEXT` (D3D's rule, once and uniformly before any output is written,
//!   is SPIR-V's). A maximum count of 0 declares no variables (SPIR-V has no empty arrays): stores to them are
//!   dropped and the count set is 0.
//! * The payload is a `TaskPayloadWorkgroupEXT` variable: what `GetMeshPayload` points to, and in an
//!   amplification shader the variable (groupshared or local) passed to `DispatchMesh`, which becomes
//!   `OpEmitMeshTasksEXT` in place of the return after it (D3D requires the call once, at the end; a path that
//!   returns without it launches no mesh groups).
//! * Quads (derivatives, quad operations) are laid out as in compute shaders; derivatives are differences of the
//!   quad's lanes (`GroupNonUniformQuad`), as validators before `SPV_KHR_compute_shader_derivatives` accept
//!   derivative instructions only in fragment and compute shaders.
//!
//! [`Translation::mesh`] reports the limits, topology and payload size; [`Translation::varyings`] where each user
//! output went. D3D links a pixel shader to a mesh shader by semantic (the two pack their signatures apart), so a
//! pixel shader behind a mesh shader takes its inputs' locations and per-primitive flags from
//! [`Options::input_varyings`] (the mesh shader's varyings).
//!
//! # Libraries and ray tracing
//! A library (`lib_6_x`) holds several entry points: [`entry_points`] lists them (name as `dx.entryPoints` spells
//! it, export name, stage, payload and attribute sizes) and [`Options::entry_point`] picks one by either name; the
//! SPIR-V entry point is named by the export name (or [`Options::entry_point_name`]). Resources are the module's `dx.resources`, reached through
//! their global variables (`createHandleForLib` of a load of the variable or of one element of its array;
//! `!dx.nonuniform` on the element's `getelementptr` marks a non-uniform index); only those the entry point uses
//! are declared. Ray generation, intersection, any-hit, closest-hit, miss and callable shaders translate through
//! SPV_KHR_ray_tracing (SPIR-V 1.4, Vulkan 1.2):
//!
//! | DXIL | SPIR-V |
//! |---|---|
//! | the entry function's payload / attribute / callable-data parameter | `IncomingRayPayloadKHR` / `HitAttributeKHR` / `IncomingCallableDataKHR` variable |
//! | `TraceRay` / `CallShader` | `OpTraceRayKHR` / `OpExecuteCallableKHR`; a payload `alloca` becomes the `RayPayloadKHR` / `CallableDataKHR` variable, other payload pointers are copied in and out |
//! | `ReportHit` | the attributes stored to the shader's `HitAttributeKHR` variable, then `OpReportIntersectionKHR` |
//! | `IgnoreHit` / `AcceptHitAndEndSearch` | `OpIgnoreIntersectionKHR` / `OpTerminateRayKHR` ending the block (the invocation ends there, as in D3D) |
//! | `DispatchRaysIndex`, `DispatchRaysDimensions` | `LaunchIdKHR`, `LaunchSizeKHR` |
//! | `WorldRayOrigin`, `WorldRayDirection`, `ObjectRayOrigin`, `ObjectRayDirection` | the built-ins of those names |
//! | `RayTMin`, `RayTCurrent` | `RayTminKHR`, `RayTmaxKHR` (`Volatile` in intersection shaders) |
//! | `InstanceIndex`, `InstanceID`, `PrimitiveIndex`, `GeometryIndex`, `HitKind`, `RayFlags` | `InstanceId`, `InstanceCustomIndexKHR`, `PrimitiveId`, `RayGeometryIndexKHR`, `HitKindKHR`, `IncomingRayFlagsKHR` |
//! | `ObjectToWorld(row, col)`, `WorldToObject(row, col)` (D3D's 3×4 matrices) | column `col`, row `row` of `ObjectToWorldKHR` / `WorldToObjectKHR` |
//!
//! Acceleration structures are descriptors in the default model; under a root signature they are 64-bit
//! addresses converted with `OpConvertUToAccelerationStructureKHR` (a root SRV's from the root block, a table's or
//! the SM 6.6 heap's from the address table at the heap slot; see [`RootSignatureBindings`]). A local root
//! signature ([`Options::local_root_signature`], [`LocalRootSignature`]; [`library_local_root_signature`] reads the
//! one a library's `RDAT` subobjects associate with an export) places the resources it holds in the shader record
//! (`ShaderRecordBufferKHR`). Work-graph node shaders fail with [`Error::StageNeeds`]: Vulkan has no work graphs but
//! the provisional `VK_AMDX_shader_enqueue`.
//!
//! # Sampler feedback
//! Vulkan has no sampler feedback. `FeedbackTexture2D` / `FeedbackTexture2DArray` UAVs are emulated as the
//! reference translator (dxil-spirv) and its runtime (vkd3d-proton) agree to, so that a runtime binding the
//! reference's translations binds ours the same way:
//! - The resource is a storage image (`OpTypeImage` of 64-bit unsigned integers, `Dim2D`, arrayed for the array
//!   kind, format `R64ui`; `Int64ImageEXT` with `SPV_EXT_shader_image_int64`, `Int64Atomics`), placed at its UAV
//!   register through the binding model like any UAV texture: the binding model and the C API's remap callback
//!   see its class (UAV) and its kind (17 `FeedbackTexture2D`, 18 `FeedbackTexture2DArray`).
//! - The image holds one 64-bit texel per mip region of level 0 (array layer `l` at layer `l`). The low 4 bits of
//!   its width and height hold log2 of the mip region's width and height in texels of level 0; the shader reads
//!   them with `OpImageQuerySize`, so no side buffer is needed.
//! - Level `L` of the sampled texture owns bits `4L..4L+4` of a texel: bit 0 marks the region that contains the
//!   footprint's low corner, bit 1 the region after it along x, bit 2 along y, bit 3 the diagonal one. A write
//!   is an `OpAtomicOr` through `OpImageTexelPointer` (device scope, relaxed); the runtime resolves the map into
//!   D3D's MinMip or MipRegionUsed form, so the shader does not care which of the two the resource declares.
//! - The level: `OpImageQueryLod`'s clamped level for `WriteSamplerFeedback`, the same at coordinates scaled by
//!   `exp2(bias)` (the bias of the quad's first lane) for `...Bias`; the operand clamped to the texture's levels
//!   (`NClamp`) for `...Level`; for `...Grad`, `0.5 · log2(max(|size₀·ddx|², |size₀·ddy|²))` likewise clamped.
//!   The optional last operand of all but `...Level` raises the level to at least its value (at most 14). The
//!   finer level is the level truncated; the coarser is truncated after adding `1 − 0.75/256` (trilinear
//!   filtering starts blending at a fraction of about 1/256) and is written only where it differs from the
//!   finer. Both are capped at the texture's last level.
//! - The footprint, per level: the coordinates wrap (`fract`), are scaled to regions of that level
//!   (`size_L · 2^−log2(region)`), and span ±half a texel there for `...Level` and `...Grad`. For implicit levels
//!   the half-extent is the per-axis larger absolute derivative of the coordinates (times `exp2(bias)`), in texels
//!   of the level, less 1/256, rounded up to a power of two between 1 and 16 (frexp's exponent), halved,
//!   in regions and at most half a region: a write reaches 2×2 regions at most. The texel written is the region
//!   of the low corner (clamped to 0); the flag bits say whether the high corner falls in the next region.
//! - Pixel shaders write only from lanes that are not helpers (`OpIsHelperInvocationEXT`). Array layers round to
//!   nearest even. Without quads (stages or compute groups that have none) implicit levels are level 0.
//!
//! The reference folds equal writes of a subgroup into one atomic before writing; ours write per lane (an OR of
//! the same bits: the map comes out the same).
//!
//! # D3D12 semantics kept where SPIR-V differs
//! | Rule | Where D3D specifies it | How |
//! |---|---|---|
//! | Out-of-bounds raw/structured buffer reads return 0, writes are dropped: per component (raw), per element (structured; an element only partly inside is out) | D3D11.3 functional spec §5.3.7 (out-of-bounds access of UAVs and SRVs); D3D12 robust resource access | explicit checks against `OpArrayLength` of the buffer's view: loads read a clamped address and select 0, stores run in a branch |
//! | Out-of-bounds typed-buffer reads return 0, writes are dropped | same | checks against `OpImageQuerySize` |
//! | Out-of-bounds atomics (buffers, typed buffers, textures) change nothing and return 0 | same | branch; the result goes through a variable holding 0 otherwise |
//! | Out-of-bounds texture writes are dropped | same | check against `OpImageQuerySize(Lod)` |
//! | Float → integer conversion saturates, NaN → 0 | D3D11.3 §3.2.3 (`ftoi`/`ftou`) | compare against the integer range around `OpConvertFTo*`, select the bounds and 0 |
//! | Unsigned division / remainder by 0 give `0xFFFFFFFF` | D3D11.3 §22.10 (`udiv`) | divisor replaced by 1, result selected |
//! | Signed division / remainder follow DXBC's expansion `sign · (\|a\| udiv \|b\|)`: `x / 0` = `-1` (x ≥ 0) or `1` (x < 0), `x % 0` likewise, `INT_MIN / -1` = `INT_MIN` | DXBC has only `udiv` (D3D11.3 §22.10); this keeps FXC-era results | expanded through absolute values, which also avoids `OpSRem` (wrong on one driver, `observed-behaviour.md` §3) |
//! | Shift amounts use their low `log2(width)` bits | D3D11.3 §22.10 (`ishl`, `ushr`, `ishr`); DXIL.rst (Shl/LShr/AShr) | mask unless the amount is a constant in range or already an `and` with such a mask (DXC usually emits it) |
//! | `min`/`max` return the non-NaN operand | D3D11.3 §3.1.2.4; DXIL `FMin`/`FMax` | GLSL.std.450 `NMin`/`NMax` |
//! | `saturate(NaN)` = 0 | D3D11.3 §3.1.2.4 | `NClamp(x, 0, 1)` |
//! | 16-bit stores to byte-address and structured buffers leave the other half of the word intact | D3D12 (16-bit types in buffers are byte-addressed) | a 16-bit view of the buffer (`StorageBuffer16BitAccess`), not a read-modify-write (`observed-behaviour.md` §2) |
//! | Min-precision 16-bit values (modules without native 16-bit types) occupy 32 bits in buffers and cbuffers | DXIL.rst (min precision; the data layout `i16:32`/`f16:32`) | converted to and from 32-bit words; with [`Requests::min_precision_32bit`] they are 32-bit values throughout |
//! | `FirstbitHi`/`FirstbitSHi` count from the most significant bit, -1 when no bit | DXIL.rst (FirstbitHi); DXBC `firstbit_hi`/`firstbit_shi` | `width − 1 − FindUMsb/FindSMsb` |
//! | Bitfield extract/insert mask width and offset to 5 bits; a field past bit 31 is cut there; width 0 extracts 0 | D3D11.3 §22.10 (`ibfe`, `ubfe`, `bfi`) | masking and selects around `OpBitField*` |
//! | `msad4` skips reference bytes equal to 0 | D3D11.3 §22.10 (`msad`) | per-byte expansion |
//! | `dot2add`: half-precision products (overflow to infinity), summed in single precision, then added to the accumulator | DXIL.rst (Dot2AddHalf); pinned down by vkd3d-proton's `test_shader_sm64_packed` | half `OpFMul`s, `OpFConvert`, single `OpFAdd`s with `NoContraction` |
//! | `IncrementCounter` returns the old value, `DecrementCounter` the new one | D3D11.3 §5.3.9 (UAV counters) | atomic add/subtract on the counter buffer, minus 1 for decrement |
//! | Compute quads (quad operations, derivatives, implicit-LOD sampling) are 2×2 thread blocks when the group's x and y are even and y > 1, else 4 consecutive threads; without quads, derivatives are 0 and implicit-LOD sampling reads level 0 | SM 6.6 compute-shader derivatives | `DerivativeGroupQuads`/`Linear` execution mode (SPV_NV/KHR_compute_shader_derivatives); explicit level 0 otherwise |
//! | 32-bit denormal mode from `fp32-denorm-mode` | DXIL.rst (function attributes) | `DenormPreserve` / `DenormFlushToZero` execution modes (SPV_KHR_float_controls); `any` sets nothing |
//! | An `undef` operand is some fixed value | LLVM | 0 |
//! | `[WaveSize]` requirements | SM 6.6/6.8 | exported in [`Translation::wave_size`] for the pipeline's required subgroup size |
//! | `pow2` partitioning rounds tessellation factors up to a power of two | D3D11.3 functional spec (tessellator partitioning) | Vulkan has no such spacing: the hull shader rounds each written factor from its float bits (exact), then runs with `SpacingEqual`; the isoline density (integer in D3D whatever the partitioning, as Vulkan's first outer level) stays |
//! | Tessellation factors above the declared `[maxtessfactor]` are clamped to it | the hull shader's declaration (DXIL's HS state) | compared and selected when the written factor is larger (under 64: Vulkan clamps the rest); zero, negative and NaN factors stay (they cull the patch in both APIs) |
//!
//! Choices where D3D leaves the result undefined: a dynamic index into a local or groupshared array is clamped
//! into the array (D3D requires such accesses to stay within the shader's own memory; SPIR-V gives no such
//! guarantee); a resource range of one register is one descriptor, whatever index the shader passes; constant
//! buffers are declared with D3D's 4096 rows so that dynamic rows past the declared size read the bound buffer,
//! and reads past the bound range rely on the device's robust buffer access (D3D returns 0 there, which the shader
//! cannot see); texture reads out of bounds rely on robust image access. Under a root signature: root descriptors
//! are not bounds-checked (D3D12 checks none), and `GetDimensions` on one (undefined in D3D12) reports the largest
//! size; a counter operation on a UAV without a counter (address 0 in the counter table) returns 0 and changes
//! nothing; an unbounded register array that no table range holds binds a single root descriptor or static
//! sampler, which every index then reads (as native drivers do).
//!
//! Not supported yet (reported as errors): raw and structured views
//! stored as texel buffers (root-signature layouts for devices whose storage-buffer offset alignment exceeds 16),
//! work-graph nodes, SM 6.9 hit objects and the SM 6.10 linear-algebra operations, `Nand` read-modify-writes on
//! groupshared memory, handles chosen through `phi`/`select`, pointer arithmetic on dynamic indices, calls to
//! other functions of a library, static samplers in local root signatures.
//!
//! # Why hand-written
//! No crates.io crate reads DXIL's LLVM 3.7 dialect and lowers it with D3D semantics. The SPIR-V emitter is ours
//! too: `rspirv`'s builder allocates per instruction and per operand, while translation here must cost a few
//! microseconds per shader; `rspirv` is used only to print text ([`disassemble`]) and in tests.
#![forbid(unsafe_code)]

pub mod binding;
pub mod cfg;
pub mod dxil;
mod error;
mod lower;
pub mod options;
mod post;
mod spv;
#[cfg(test)]
mod testutil;

use std::sync::Arc;

pub use binding::{
    ArraySize, BindingModel, BindingResolver, D3dBinding, DescriptorType, HeapConventions,
    HeapLayout, LocalParameter, LocalRange, LocalRootSignature, LocalRootSignatureError,
    OffsetEntry, OffsetKind, Placement, RegisterBindings, ResolverBindings, RootBlock,
    RootBlockPlacement, RootSignatureBindings,
};
pub use dxil::{EntryPoint, ResourceClass, ResourceKind, Stage, entry_points};
pub use dxil_shader::{TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning};
pub use error::{Detail, Error, Invalid, Limit, Location, MetadataError, Unsupported};
pub use lower::Translator;
pub use options::{Features, Requests, SampleCount};

/// Translation options. [`Options::default`] is the default binding model ([`RegisterBindings::default`]), the
/// module's first entry point, bounds checks on, denormal modes on, no debug names, every device feature the
/// translator uses ([`Features::default`]), no requests.
#[derive(Clone, Debug)]
pub struct Options {
    /// Entry point to translate; `None` = the first of `dx.entryPoints` with a function. In a library, a
    /// function's `dx.entryPoints` name or its export name ([`entry_points`]).
    pub entry_point: Option<String>,
    /// Name of the SPIR-V entry point; `None`: the DXIL entry point's name (in a library, the export name). Runtimes
    /// that name every stage alike (vkd3d-proton's pipelines ask for `main`) set it.
    pub entry_point_name: Option<String>,
    /// How resources become descriptors.
    pub binding: Arc<dyn BindingModel>,
    /// Ray-tracing stages: the local root signature of the shader's records. Resources it holds are read from the
    /// shader record ([`LocalRootSignature`]) instead of through `binding`; other stages ignore it.
    pub local_root_signature: Option<Arc<LocalRootSignature>>,
    /// Explicit bounds checks on buffer accesses (D3D12 out-of-bounds semantics). Turning them off leaves
    /// out-of-bounds behaviour to the device's robustness features.
    pub bounds_checks: bool,
    /// Emit `DenormPreserve` / `DenormFlushToZero` for `fp32-denorm-mode`; devices without
    /// `shaderDenormPreserveFloat32` / `shaderDenormFlushToZeroFloat32` need this off.
    pub denorm_modes: bool,
    /// Emit `OpName` for the entry point, resources and values.
    pub debug_names: bool,
    /// Domain shaders: the location of patch constant row 0, as the hull shader it runs after reports it
    /// ([`Tessellation::patch_location_offset`]). `None`: the rows of the domain shader's own control-point
    /// signature, which is the hull shader's offset when the two signatures agree.
    pub patch_location_offset: Option<u32>,
    /// Pixel shaders behind a mesh shader: where the mesh shader put its user outputs (its
    /// [`Translation::varyings`]). D3D links the two by semantic, and a mesh shader packs its vertex and primitive
    /// outputs apart, so each user input of the pixel shader takes the location, component and per-primitive flag
    /// (`PerPrimitiveEXT`) of the varying with its semantic name (case-insensitive) and index. `None`: inputs sit
    /// at their own registers, which match the outputs of the vertex, domain or geometry shader before them.
    pub input_varyings: Option<Arc<[Varying]>>,
    /// What the device offers: a translation that needs more fails with [`Error::Option`].
    pub features: Features,
    /// Requests that change the generated code: one the translator cannot honour fails with [`Error::Option`].
    pub requests: Requests,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            entry_point: None,
            entry_point_name: None,
            binding: Arc::new(RegisterBindings::default()),
            local_root_signature: None,
            bounds_checks: true,
            denorm_modes: true,
            debug_names: false,
            patch_location_offset: None,
            input_varyings: None,
            features: Features::default(),
            requests: Requests::default(),
        }
    }
}

/// How many descriptors a binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorCount {
    One,
    Fixed(u32),
    Runtime,
}

/// What a descriptor binding stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoundResource {
    /// A declared register range.
    Range(D3dBinding),
    /// The counter buffer of a UAV range (one `u32` per UAV).
    Counter(D3dBinding),
    /// An SM 6.6 descriptor heap (`sampler = true`: the sampler heap) for one descriptor type.
    Heap { sampler: bool },
    /// The counters of UAVs taken from the descriptor heap.
    HeapCounter,
    /// The root block, spilled into a uniform buffer.
    RootBlock,
    /// The address table: one `uvec2` address per heap slot, of the slot's UAV counter or acceleration structure.
    CounterAddresses,
    /// The offset buffer (two `uvec2` windows per heap slot).
    OffsetBuffer,
}

/// One descriptor binding the module expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub descriptor_type: DescriptorType,
    pub count: DescriptorCount,
    pub resource: BoundResource,
    /// The shader may write through it.
    pub writable: bool,
    /// Typed storage images / texel buffers: the declared format (`None` = Unknown).
    pub format: Option<spirv::ImageFormat>,
}

/// A required wave (subgroup) size range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaveSize {
    pub min: u32,
    pub max: u32,
    /// 0 = no preference.
    pub preferred: u32,
}

/// What a pipeline needs to know about a hull or domain shader.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tessellation {
    /// Hull: control points of the patches it declares (the pipeline's `patchControlPoints` when the draw
    /// follows the declaration; the shader reads up to 32); domain: control points it reads, those the hull
    /// shader outputs.
    pub input_control_points: u32,
    /// Hull: control points it outputs (`OutputVertices`; 1 when it declares none); domain: 0.
    pub output_control_points: u32,
    pub domain: TessellatorDomain,
    /// Hull: the partitioning (`Pow2` runs as `SpacingEqual`, factors rounded in the shader); domain: `Undefined`.
    pub partitioning: TessellatorPartitioning,
    /// Hull: the output primitive; domain: `Undefined`.
    pub output_primitive: TessellatorOutputPrimitive,
    /// Hull: `[maxtessfactor]` (written factors are clamped to it); domain: 0.
    pub max_tess_factor: f32,
    /// The location of patch constant row 0 (user patch constants are at this offset + their row): the hull
    /// shader's, to translate its domain shader with ([`Options::patch_location_offset`]).
    pub patch_location_offset: u32,
}

/// One row of a user output element (a varying) as the translation placed it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Varying {
    /// The semantic name as the signature spells it.
    pub semantic: String,
    /// The semantic index of this row.
    pub index: u32,
    pub location: u32,
    pub component: u32,
    /// A mesh shader's per-primitive output (`PerPrimitiveEXT`).
    pub per_primitive: bool,
}

/// The primitive type a mesh shader outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshTopology {
    Lines,
    Triangles,
}

/// What a pipeline needs to know about a mesh or amplification shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MeshInfo {
    /// Mesh shaders: `OutputVertices` and `OutputPrimitivesEXT` (0 for amplification shaders).
    pub max_vertices: u32,
    pub max_primitives: u32,
    /// Mesh shaders: the output topology (`None` for amplification shaders).
    pub topology: Option<MeshTopology>,
    /// Size in bytes of the payload the amplification shader passes to the mesh shader (D3D checks that both
    /// shaders of a pipeline agree).
    pub payload_bytes: u32,
}

/// A translated shader.
#[derive(Clone, Debug)]
pub struct Translation {
    pub words: Vec<u32>,
    /// Name of the SPIR-V entry point ([`Options::entry_point_name`], else the DXIL entry name).
    pub entry_point: String,
    pub stage: Stage,
    /// `numthreads` of a compute, mesh or amplification shader.
    pub workgroup_size: [u32; 3],
    /// Descriptor bindings, sorted by (set, binding); several entries share a (set, binding) only when the
    /// module declares differently typed views of one descriptor (heap arrays).
    pub bindings: Vec<Binding>,
    /// Size of the push-constant block in bytes (0 = none).
    pub push_constant_bytes: u32,
    /// The wave sizes the shader requires (`[WaveSize]`, SM 6.6/6.8): the pipeline must run it with a subgroup
    /// size in `min..=max` (`VkPipelineShaderStageRequiredSubgroupSizeCreateInfo`), `preferred` when possible.
    pub wave_size: Option<WaveSize>,
    /// Hull and domain shaders: their tessellation state.
    pub tessellation: Option<Tessellation>,
    /// Mesh and amplification shaders: output limits, topology and payload size.
    pub mesh: Option<MeshInfo>,
    /// The user outputs of a mesh shader, one entry per row (see [`Options::input_varyings`]; the outputs of
    /// vertex, domain and geometry shaders are at their registers, where the pixel shader looks for them).
    pub varyings: Vec<Varying>,
    /// SPIR-V version of the module (major, minor).
    pub spirv_version: (u8, u8),
    /// Lowest Vulkan version whose SPIR-V environment accepts the module (major, minor).
    pub vulkan_version: (u8, u8),
    pub capabilities: Vec<spirv::Capability>,
    pub extensions: Vec<&'static str>,
    /// The `SpecId` of the rasterizer's sample count ([`SampleCount::SpecConstant`], the default) when the shader reads it: the
    /// pipeline should set it to its `rasterizationSamples`.
    pub sample_count_spec_id: Option<u32>,
}

impl Translation {
    /// The module declares a variable decorated with `builtin` (e.g. `SubgroupSize`, which a pipeline must then
    /// allow to vary).
    pub fn uses_builtin(&self, builtin: spirv::BuiltIn) -> bool {
        let w = &self.words;
        let mut i = 5;
        while i < w.len() {
            let count = (w[i] >> 16) as usize;
            let op = w[i] & 0xFFFF;
            if count == 0 {
                return false;
            }
            // OpDecorate %x BuiltIn b
            if op == spirv::Op::Decorate as u32
                && count == 4
                && w.get(i + 2) == Some(&(spirv::Decoration::BuiltIn as u32))
                && w.get(i + 3) == Some(&(builtin as u32))
            {
                return true;
            }
            // Decorations come before the types, constants and variables (the module's logical layout), so the
            // scan stops at the first of those rather than walking the globals too.
            if op == spirv::Op::Function as u32
                || (spirv::Op::TypeVoid as u32..=spirv::Op::TypeForwardPointer as u32).contains(&op)
                || (spirv::Op::ConstantTrue as u32..=spirv::Op::ConstantNull as u32).contains(&op)
                || op == spirv::Op::Variable as u32
            {
                return false;
            }
            i += count;
        }
        false
    }
}

impl Translator {
    /// Translates `module`'s entry point and holds the result to `options.requests` and `options.features`: the
    /// library's one translation path (the `dxil` tool, the runtime and the C API all come through here).
    pub fn compile(
        &mut self,
        module: &dxil_module::Module,
        options: &Options,
    ) -> Result<Translation, Error> {
        let entry = dxil::read_entry(module, options.entry_point.as_deref())?;
        self.compile_entry(module, entry, options)
    }

    /// [`Translator::compile`] of an entry point read beforehand ([`dxil::entry_info`] reuses a metadata view the
    /// caller already has).
    pub fn compile_entry(
        &mut self,
        module: &dxil_module::Module,
        entry: dxil::EntryInfo,
        options: &Options,
    ) -> Result<Translation, Error> {
        let r = &options.requests;
        let flags = dxil_shader::ShaderFlags(entry.flags);
        let outputs = if r.stream_output.is_empty() {
            Vec::new()
        } else {
            entry.signatures().outputs.clone()
        };
        let mut t = self.translate_entry(module, entry, options)?;
        r.check(t.stage)?;
        options.features.check(&t.capabilities)?;
        if r.min_precision_32bit {
            min_precision_check(flags, &t)?;
        }
        post::output_decorations(
            &mut t.words,
            r.invariant_position,
            r.dual_source_blending && t.stage == Stage::Pixel,
        );
        if !r.stream_output.is_empty()
            && matches!(t.stage, Stage::Vertex | Stage::Geometry | Stage::Domain)
        {
            let captured = xfb_targets(&outputs, &r.stream_output)?;
            post::stream_output(&mut t.words, &captured).map_err(|why| Error::Option {
                option: "stream output",
                why,
            })?;
        }
        Ok(t)
    }
}

/// Refuses a min-precision module whose translation uses 16-bit arithmetic when the request wants it 32-bit.
fn min_precision_check(flags: dxil_shader::ShaderFlags, t: &Translation) -> Result<(), Error> {
    use dxil_shader::ShaderFlags;
    let sixteen = t
        .capabilities
        .iter()
        .any(|&c| matches!(c, spirv::Capability::Float16 | spirv::Capability::Int16));
    if sixteen
        && flags.contains(ShaderFlags::LOW_PRECISION_PRESENT)
        && !flags.contains(ShaderFlags::USE_NATIVE_LOW_PRECISION)
    {
        return Err(Error::Option {
            option: "32-bit min precision",
            why: "the translation of this min-precision module still needs 16-bit operations, and the device has \
                  none"
                .into(),
        });
    }
    Ok(())
}

/// The output variables stream output captures. The translator puts a user output element at location = its start
/// row, component = its start column (stream 0), `SV_Position` at the `Position` built-in.
fn xfb_targets(
    outputs: &[dxil_shader::SignatureElement],
    captured: &[options::StreamOutput],
) -> Result<Vec<post::Xfb>, Error> {
    use dxil_container::SemanticKind;
    let refuse = |why: String| Error::Option {
        option: "stream output",
        why,
    };
    let mut out = Vec::new();
    for so in captured {
        let what = format!("{}{}", so.semantic, so.index);
        let el = outputs
            .iter()
            .find(|x| {
                x.name.eq_ignore_ascii_case(&so.semantic) && x.semantic_indices.contains(&so.index)
            })
            .ok_or_else(|| refuse(format!("the shader has no output {what}")))?;
        let stream = el.output_stream.unwrap_or(0);
        if stream != 0 {
            return Err(refuse(format!(
                "{what} is on stream {stream} (only stream 0 is captured)"
            )));
        }
        let target = match el.semantic_kind {
            SemanticKind::Position => post::XfbTarget::BuiltIn(spirv::BuiltIn::Position),
            SemanticKind::Arbitrary if el.rows == 1 && el.start_row >= 0 && el.start_col >= 0 => {
                post::XfbTarget::Location(el.start_row as u32, el.start_col as u32)
            }
            _ => {
                return Err(refuse(format!(
                    "{what}: only SV_Position and single-row user elements are captured"
                )));
            }
        };
        out.push((target, so.buffer, so.offset, so.stride));
    }
    Ok(out)
}

/// Translates the module's entry point ([`Translator::compile`]).
pub fn translate(module: &dxil_module::Module, options: &Options) -> Result<Translation, Error> {
    Translator::new().compile(module, options)
}

/// Reads a DXIL container and translates it.
pub fn translate_container(bytes: &[u8], options: &Options) -> Result<Translation, Error> {
    let module = read_container(bytes)?;
    translate(&module, options)
}

/// Reads the DXIL program part of a container into a module.
pub fn read_container(bytes: &[u8]) -> Result<dxil_module::Module, Error> {
    let c = dxil_container::Container::parse(bytes)?;
    let p = c.program().ok_or(Error::NoProgram)??;
    Ok(dxil_module::read_module(
        p.bitcode,
        p.bitcode_byte_offset_in_container as u64,
    )?)
}

/// The local root signature a library container's `RDAT` subobjects associate with `export` (see
/// [`dxil_container::RdatLibrary::local_root_signature_of`]), as the shader-record layout
/// [`Options::local_root_signature`] takes, with `table_shift` 0 (records holding heap slots). `Ok(None)` when the
/// container has no `RDAT` part or associates none.
pub fn library_local_root_signature(
    bytes: &[u8],
    export: &str,
) -> Result<Option<LocalRootSignature>, Error> {
    let c = dxil_container::Container::parse(bytes)?;
    let Some(lib) = c.rdat_library() else {
        return Ok(None);
    };
    let lib = lib?;
    let Some(rts0) = lib.local_root_signature_of(export) else {
        return Ok(None);
    };
    let rs = dxil_rootsig::RootSignature::from_rts0(rts0)
        .map_err(|e| Error::Binding(format!("local root signature of `{export}`: {e}")))?;
    LocalRootSignature::from_root_signature(&rs)
        .map(Some)
        .map_err(|e| Error::Binding(format!("`{export}`: {e}")))
}

/// SPIR-V words as readable text (one instruction per line, `%id` names).
#[cfg(feature = "text")]
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    use rspirv::binary::Disassemble;
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(words, &mut loader).map_err(|e| e.to_string())?;
    Ok(loader.module().disassemble())
}
