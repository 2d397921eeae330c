package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStartCPUProfile(t *testing.T) {
	stop, err := startCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop() // profiles nothing

	path := filepath.Join(t.TempDir(), "cpu.pprof")
	if stop, err = startCPUProfile(path); err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // a second stop changes nothing
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %v %v: want a written file", fi, err)
	}
	if _, err := startCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.pprof")); err == nil {
		t.Fatal("a profile in a missing directory started")
	}
}
