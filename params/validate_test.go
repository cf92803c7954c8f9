package params

import "testing"

func TestRangeValidators(t *testing.T) {
	if err := IntIn(1, 4)(4); err != nil {
		t.Errorf("IntIn(1, 4)(4): %v", err)
	}
	if err := IntIn(1, 4)(5); err == nil || err.Error() != "must be 1 to 4" {
		t.Errorf("IntIn(1, 4)(5): %v", err)
	}
	if err := SizeIn(8, 16)(int64(7)); err == nil || err.Error() != "must be 8 to 16 bytes" {
		t.Errorf("SizeIn(8, 16)(7): %v", err)
	}
	if err := SizeIn(8, 16)(int64(8)); err != nil {
		t.Errorf("SizeIn(8, 16)(8): %v", err)
	}
}
