package main

import "testing"

// --cpuprofile-phase needs a profile file, one engine and a phase that
// runs; bare always runs.
func TestCPUProfilePhaseFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--cpuprofile", "p", "--cpuprofile-phase", "create-key", "--phases", "create-key"}, true},
		{[]string{"--cpuprofile", "p", "--cpuprofile-phase", "bare", "--phases", "create"}, true},
		{[]string{"--cpuprofile-phase", "create-key", "--phases", "create-key"}, false},
		{[]string{"--cpuprofile", "p", "--cpuprofile-phase", "read", "--phases", "create-key"}, false},
		{[]string{"--cpuprofile", "p", "--cpuprofile-phase", "create", "--database-url", "postgres://x", "--phases", "create"}, false},
		{[]string{"--cpuprofile", "p", "--cpuprofile-phase", "create", "--database-url", "postgres://x", "--engines", "postgres", "--phases", "create"}, true},
	} {
		o, err := parseLoadFlags(tc.args)
		if (err == nil) != tc.ok {
			t.Errorf("%v: err %v, want ok %v", tc.args, err, tc.ok)
		}
		if err == nil && o.profilePhase == "" {
			t.Errorf("%v: the phase was not kept", tc.args)
		}
	}
}
