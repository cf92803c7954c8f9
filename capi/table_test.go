package main

import (
	"sync"
	"testing"
)

type testEntry struct {
	p *int
	n int
}

// A handle given back is gone, and its slot is reused zeroed.
func TestSlotTableRecycle(t *testing.T) {
	var tb slotTable[testEntry]
	x := new(int)
	h, err := tb.put(testEntry{p: x, n: 7})
	if err != nil {
		t.Fatal(err)
	}
	if h < firstHandle {
		t.Fatalf("handle %#x is below the first user handle %#x", h, firstHandle)
	}
	if e := tb.get(h); e == nil || e.p != x || e.n != 7 {
		t.Fatalf("get(%#x) = %+v, want the entry put", h, e)
	}
	if !tb.recycle(h) {
		t.Fatalf("recycle(%#x) of a live handle reported it dead", h)
	}
	if e := tb.get(h); e != nil {
		t.Fatalf("get(%#x) after recycle = %+v, want nil", h, e)
	}
	if tb.recycle(h) {
		t.Fatalf("a second recycle(%#x) reported it live", h)
	}
	for _, bad := range []uintptr{0, firstHandle - 1, firstHandle + 5, 1 << 40} {
		if tb.get(bad) != nil || tb.recycle(bad) {
			t.Errorf("handle %#x never given out is live", bad)
		}
	}
	h2, err := tb.put(testEntry{n: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e := tb.get(h2); h2 != h || e.p != nil || e.n != 1 {
		t.Fatalf("put after recycle gave %#x %+v, want %#x reused with only the new entry", h2, e, h)
	}
}

// Goroutines that make and take back handles at once never share one.
func TestSlotTableConcurrent(t *testing.T) {
	var tb slotTable[testEntry]
	const workers, rounds, batch = 4, 2000, 8
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs := make([]uintptr, batch)
			for r := range rounds {
				for i := range hs {
					h, err := tb.put(testEntry{n: w*1_000_000 + r*batch + i})
					if err != nil {
						errs <- err.Error()
						return
					}
					hs[i] = h
				}
				for i, h := range hs {
					if e := tb.get(h); e == nil || e.n != w*1_000_000+r*batch+i {
						errs <- "a live handle's entry changed under another goroutine"
						return
					}
				}
				if r%2 == 0 {
					tb.recycleAll(hs)
				} else {
					for _, h := range hs {
						tb.recycle(h)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if tb.next > workers*batch {
		t.Errorf("%d entries used for %d live at most: given-back ones not reused", tb.next, workers*batch)
	}
}

// A request's handle made and taken back, as each Isend and its Wait do.
func BenchmarkSlotTable(b *testing.B) {
	var tb slotTable[reqEntry]
	for b.Loop() {
		h, _ := tb.put(reqEntry{persistent: true})
		tb.recycle(h)
	}
}
