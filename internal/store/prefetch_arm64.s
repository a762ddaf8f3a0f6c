#include "textflag.h"

// func prefetchLines(b []byte)
TEXT ·prefetchLines(SB), NOSPLIT, $0-24
	MOVD b_base+0(FP), R0
	MOVD b_len+8(FP), R1
	ADD  R0, R1, R1
	AND  $~63, R0, R0

loop:
	CMP  R1, R0
	BHS  done
	PRFM (R0), PLDL1KEEP
	ADD  $64, R0, R0
	B    loop

done:
	RET
