package expr

import "time"

// timeValue is microseconds since the epoch, read as UTC.
type timeValue int64

func (t timeValue) t() time.Time      { return time.UnixMicro(int64(t)).UTC() }
func (t timeValue) Year() int         { return t.t().Year() }
func (t timeValue) Month() time.Month { return t.t().Month() }
func (t timeValue) Day() int          { return t.t().Day() }
func (t timeValue) Hour() int         { return t.t().Hour() }
func (t timeValue) Minute() int       { return t.t().Minute() }
func (t timeValue) Second() int       { return t.t().Second() }
func (t timeValue) Nanosecond() int   { return t.t().Nanosecond() }
func (t timeValue) Weekday() int      { return int(t.t().Weekday()) }
func (t timeValue) YearDay() int      { return t.t().YearDay() }
