package prof

import "testing"

func TestTickRate(t *testing.T) {
	if got := TickRate(100, 300, 100); got != 0.5 {
		t.Errorf("rate %v, want 0.5", got)
	}
	if got := TickRate(100, 100, 100); got != 1 {
		t.Errorf("rate without ticks %v, want 1", got)
	}
}

func TestTicksAdvance(t *testing.T) {
	c := NewClock()
	for Ticks() == c.Ticks0() {
	}
	if Ticks() < c.Ticks0() {
		t.Fatal("Ticks went backwards")
	}
	if r := c.Rate(); r <= 0 {
		t.Errorf("rate %v, want a positive number of ns per tick", r)
	}
}
