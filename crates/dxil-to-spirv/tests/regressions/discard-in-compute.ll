; Found by translating DXIL this repository had not seen: discard in a compute shader.
; The translation used OpDemoteToHelperInvocation, which only fragment shaders may use; DXIL allows
; Discard in pixel shaders only, so the translator now refuses the call, naming it.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %2 = icmp eq i32 %1, 0
  call void @dx.op.discard(i32 82, i1 %2)
  ret void
}

declare i32 @dx.op.threadId.i32(i32, i32) #0
declare void @dx.op.discard(i32, i1) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"cs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", null, null, !4}
!4 = !{i32 4, !5}
!5 = !{i32 8, i32 1, i32 1}
