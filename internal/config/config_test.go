package config

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestSet_EnvThenFlags(t *testing.T) {
	t.Setenv("EXTRACT_VISIBILITY", "90s")
	t.Setenv("EXTRACT_CONCURRENCY", "3")
	t.Setenv("DATABASE_URL", "postgres://u:hunter2@db:5432/x")
	s := NewSet(flag.NewFlagSet("t", flag.ContinueOnError))
	c := BindCommon(s, "127.0.0.1:9103")
	st := BindStage(s, "EXTRACT", 4, 60*time.Second)
	if err := s.Parse([]string{"--extract-concurrency", "7"}); err != nil {
		t.Fatal(err)
	}
	if *st.Visibility != 90*time.Second || *st.Concurrency != 7 || *c.MetricsAddr != "127.0.0.1:9103" {
		t.Fatalf("visibility %s concurrency %d metrics %q", *st.Visibility, *st.Concurrency, *c.MetricsAddr)
	}
	if *c.DatabaseURL != "postgres://u:hunter2@db:5432/x" {
		t.Fatalf("DATABASE_URL = %q", *c.DatabaseURL)
	}
	var help strings.Builder
	s.FlagSet().SetOutput(&help)
	s.FlagSet().PrintDefaults()
	if strings.Contains(help.String(), "hunter2") {
		t.Fatal("-h output shows the database password")
	}
}

func TestSet_BadValuesAreErrors(t *testing.T) {
	for name, val := range map[string]string{"CLEAN_VISIBILITY": "15", "CLEAN_CONCURRENCY": "many"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, val)
			s := NewSet(flag.NewFlagSet("t", flag.ContinueOnError))
			BindStage(s, "CLEAN", 2, 15*time.Second)
			err := s.Parse(nil)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("Parse = %v, want an error naming %s", err, name)
			}
		})
	}
}

func TestBindCommon_PartitionsInRange(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		want    int
	}{
		{args: nil, want: 1},
		{args: []string{"--clean-partitions", "4"}, want: 4},
		{args: []string{"--clean-partitions", "0"}, wantErr: "CLEAN_PARTITIONS=0: must be 1 to 64"},
		{args: []string{"--clean-partitions", "65"}, wantErr: "CLEAN_PARTITIONS=65: must be 1 to 64"},
	} {
		s := NewSet(flag.NewFlagSet("t", flag.ContinueOnError))
		c := BindCommon(s, "")
		err := s.Parse(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || c.Partitions().Of("clean") != tc.want {
			t.Errorf("%v: %v partitions, err %v; want %d", tc.args, c.Partitions().Of("clean"), err, tc.want)
		}
	}
}
