; Found by the translate fuzz target: a compute shader of [numthreads(4294967295, 4294967295, 7)].
; Its thread count overflowed u64 while deciding how quads form (a panic with overflow checks).
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%"class.Texture2D<float>" = type { float, %"class.Texture2D<float>::mips_type" }
%"class.Texture2D<float>::mips_type" = type { i32 }
%"class.RWTexture2D<float>" = type { float }
%struct.SamplerComparisonState = type { i32 }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind zeroinitializer, i32 0, i1 false)
  %3 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 3 }, i32 0, i1 false)
  %4 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %5 = call i32 @dx.op.threadId.i32(i32 93, i32 1)
  %6 = uitofp i32 %4 to float
  %7 = fmul fast float %6, 1.250000e-01
  %8 = uitofp i32 %5 to float
  %9 = fmul fast float %8, 5.000000e-01
  %10 = fadd fast float %9, 6.250000e-02
  %11 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 1, i32 265 })
  %12 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 32782, i32 0 })
  %13 = call %dx.types.ResRet.f32 @dx.op.sampleCmpLevel.f32(i32 224, %dx.types.Handle %11, %dx.types.Handle %12, float 5.000000e-01, float 5.000000e-01, float undef, float undef, i32 0, i32 0, i32 undef, float %7, float %10)
  %14 = extractvalue %dx.types.ResRet.f32 %13, 0
  %15 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4098, i32 265 })
  call void @dx.op.textureStore.f32(i32 67, %dx.types.Handle %15, i32 %4, i32 %5, i32 undef, float %14, float %14, float %14, float %14, i8 15)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #0

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.sampleCmpLevel.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float) #1

; Function Attrs: nounwind
declare void @dx.op.textureStore.f32(i32, %dx.types.Handle, i32, i32, i32, float, float, float, float, i8) #2

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1) #0

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind readonly }
attributes #2 = { nounwind }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!11}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 7, i32 7}
!2 = !{!"cs", i32 6, i32 7}
!3 = !{!4, !7, null, !9}
!4 = !{!5}
!5 = !{i32 0, %"class.Texture2D<float>"* undef, !"", i32 0, i32 0, i32 7, i32 1, i32 0, !6}
!6 = !{i32 0, i32 9}
!7 = !{!8}
!8 = !{i32 0, %"class.RWTexture2D<float>"* undef, !"", i32 0, i32 0, i32 7, i32 1, i1 false, i1 false, i1 false, !6}
!9 = !{!10}
!10 = !{i32 0, %struct.SamplerComparisonState* undef, !"", i32 0, i32 0, i32 7, i32 7, null}
!11 = !{void ()* @main, !"main", null, !3, !12}
!12 = !{i32 0, i64 25769803776, i32 4, !13}
!13 = !{i32 -1, i32 -1, i32 7}
