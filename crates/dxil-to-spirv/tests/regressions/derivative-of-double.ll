; Found by translating DXIL this repository had not seen: a derivative of a double (DerivCoarseX
; called through dx.op.unary.f64). SPIR-V derivatives take 32-bit floats only; DXIL's DerivCoarseX has
; half and float overloads, so the translator refuses the overload.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %2 = fpext float %1 to double
  %3 = call double @dx.op.unary.f64(i32 83, double %2)
  %4 = fptrunc double %3 to float
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %4)
  ret void
}

declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0
declare double @dx.op.unary.f64(i32, double) #0
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"ps", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, !11}
!4 = !{!5, !8, null}
!5 = !{!6}
!6 = !{i32 0, !"TEXCOORD", i8 9, i8 0, !7, i8 2, i32 1, i8 1, i32 0, i8 0, null}
!7 = !{i32 0}
!8 = !{!9}
!9 = !{i32 0, !"SV_Target", i8 9, i8 16, !7, i8 0, i32 1, i8 1, i32 0, i8 0, null}
!11 = !{i32 0, i64 4}
