#define BOOST_TEST_MODULE filter_test
#include "client/filter.h"

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace ftb {

// Boost.Test prints values of failed checks; this lets it print Code.
std::ostream& boost_test_print_type(std::ostream& os, Code code) { return os << codeName(code); }

namespace {

struct Ev {
  std::string space = "FTB.MPI.OPENMPI";
  std::string name = "FTB_MPI_PROCS_DEAD";
  proto::Severity severity = proto::ERROR;
  std::string job = "1234";
  std::string host = "node01";
  std::string client = "mpirun";
};

proto::Event make(const Ev& e) {
  proto::Event event;
  event.set_event_space(e.space);
  event.set_event_name(e.name);
  event.set_severity(e.severity);
  event.set_job_id(e.job);
  event.mutable_id()->mutable_origin()->set_host(e.host);
  event.set_client_name(e.client);
  return event;
}

proto::Event inSpace(const std::string& space) { return make(Ev{.space = space}); }
proto::Event withSeverity(proto::Severity s) { return make(Ev{.severity = s}); }

Filter parse(const std::string& text) {
  auto f = Filter::parse(text);
  BOOST_TEST_REQUIRE(f.ok(), text << ": " << f.status().toString());
  return *f;
}

bool matches(const std::string& text, const proto::Event& event) {
  return parse(text).matches(event);
}

void expectError(const std::string& text, std::initializer_list<std::string> parts) {
  auto f = Filter::parse(text);
  BOOST_TEST_CONTEXT("filter \"" << text << "\"") {
    BOOST_REQUIRE(!f.ok());
    BOOST_TEST(f.status().code() == Code::kInvalidArgument);
    for (const auto& part : parts) {
      BOOST_TEST(f.status().message().find(part) != std::string::npos,
                 "'" << part << "' not in: " << f.status().message());
    }
  }
}

// ---- FTB 0.5 forms ----

BOOST_AUTO_TEST_CASE(empty_and_whitespace_match_everything) {
  for (const char* text : {"", "   ", " \t\n"}) {
    BOOST_TEST(matches(text, make(Ev{})));
    BOOST_TEST(matches(text, proto::Event()));  // even an event with nothing set
  }
  BOOST_TEST(parse(" ").text() == " ");
}

BOOST_AUTO_TEST_CASE(all_is_a_wildcard_for_every_key) {
  const std::string text =
      "event_space=all, severity=ALL, jobid=All, host_name=all, event_name=all, client_name=all";
  BOOST_TEST(matches(text, make(Ev{})));
  BOOST_TEST(matches(text, make(Ev{.space = "X",
                                   .name = "Y",
                                   .severity = proto::INFO,
                                   .job = "j",
                                   .host = "h",
                                   .client = "c"})));
}

BOOST_AUTO_TEST_CASE(three_segment_spaces_ftb05) {
  BOOST_TEST(matches("event_space=FTB.MPI.OPENMPI", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(!matches("event_space=FTB.MPI.OPENMPI", inSpace("FTB.MPI.MPICH")));
  BOOST_TEST(!matches("event_space=FTB.MPI.OPENMPI", inSpace("FTB.MPI")));
  BOOST_TEST(!matches("event_space=FTB.MPI.OPENMPI", inSpace("FTB.MPI.OPENMPI.RANK0")));
  BOOST_TEST(matches("event_space=FTB.ALL.ALL", inSpace("FTB.IB.MLX5")));
  BOOST_TEST(!matches("event_space=FTB.ALL.ALL", inSpace("FTB.IB")));
  BOOST_TEST(!matches("event_space=FTB.ALL.ALL", inSpace("OTHER.IB.MLX5")));
  BOOST_TEST(matches("event_space=FTB.MPI.ALL", inSpace("FTB.MPI.MPICH")));
  BOOST_TEST(matches("event_space=FTB.ALL.OPENMPI", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(!matches("event_space=FTB.ALL.OPENMPI", inSpace("FTB.MPI.MPICH")));
  BOOST_TEST(matches("event_space=ALL.ALL.ALL", inSpace("A.B.C")));
}

BOOST_AUTO_TEST_CASE(mixed_case_keys_values_and_spaces) {
  BOOST_TEST(matches("Event_Space=ftb.mpi.openmpi", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(matches("EVENT_SPACE=Ftb.All.aLL", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(matches("SEVERITY=Error", make(Ev{})));
  BOOST_TEST(matches("event_name=ftb_mpi_procs_dead", make(Ev{})));
  // Events should carry upper case, but matching does not depend on it.
  BOOST_TEST(matches("event_space=FTB.MPI.OPENMPI", inSpace("ftb.mpi.openmpi")));
}

BOOST_AUTO_TEST_CASE(full_ftb05_filter_with_whitespace) {
  const std::string text =
      "  event_space = FTB.MPI.OPENMPI ,severity=error,jobid=1234 , host_name=node01,"
      "event_name=FTB_MPI_PROCS_DEAD, client_name=mpirun ";
  BOOST_TEST(matches(text, make(Ev{})));
  BOOST_TEST(!matches(text, make(Ev{.severity = proto::FATAL})));
  BOOST_TEST(!matches(text, make(Ev{.job = "12345"})));
  BOOST_TEST(!matches(text, make(Ev{.host = "node02"})));
  BOOST_TEST(!matches(text, make(Ev{.name = "OTHER"})));
  BOOST_TEST(!matches(text, make(Ev{.client = "srun"})));
  BOOST_TEST(parse(text).text() == text);
}

BOOST_AUTO_TEST_CASE(exact_fields_are_case_sensitive) {
  BOOST_TEST(!matches("host_name=NODE01", make(Ev{})));
  BOOST_TEST(!matches("client_name=MPIRUN", make(Ev{})));
  BOOST_TEST(!matches("jobid=abc", make(Ev{.job = "ABC"})));
  BOOST_TEST(matches("jobid=ABC", make(Ev{.job = "ABC"})));
}

BOOST_AUTO_TEST_CASE(each_severity_by_name) {
  BOOST_TEST(matches("severity=info", withSeverity(proto::INFO)));
  BOOST_TEST(matches("severity=warning", withSeverity(proto::WARNING)));
  BOOST_TEST(matches("severity=error", withSeverity(proto::ERROR)));
  BOOST_TEST(matches("severity=fatal", withSeverity(proto::FATAL)));
  BOOST_TEST(!matches("severity=fatal", withSeverity(proto::ERROR)));
  BOOST_TEST(!matches("severity=info", withSeverity(proto::SEVERITY_UNSPECIFIED)));
}

// ---- extensions ----

BOOST_AUTO_TEST_CASE(trailing_star_or_all_matches_one_or_more_segments) {
  for (const char* text : {"event_space=FTB.MPI.*", "event_space=FTB.MPI.ALL"}) {
    BOOST_TEST(matches(text, inSpace("FTB.MPI.OPENMPI")));
    BOOST_TEST(matches(text, inSpace("FTB.MPI.OPENMPI.RANK0")));
    BOOST_TEST(!matches(text, inSpace("FTB.MPI")));
    BOOST_TEST(!matches(text, inSpace("FTB.IB.MLX5")));
  }
  BOOST_TEST(matches("event_space=*", inSpace("FTB")));
  BOOST_TEST(matches("event_space=*", inSpace("A.B.C.D")));
}

BOOST_AUTO_TEST_CASE(inner_star_matches_exactly_one_segment) {
  BOOST_TEST(matches("event_space=FTB.*.OPENMPI", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(!matches("event_space=FTB.*.OPENMPI", inSpace("FTB.OPENMPI")));
  BOOST_TEST(!matches("event_space=FTB.*.OPENMPI", inSpace("FTB.A.B.OPENMPI")));
}

BOOST_AUTO_TEST_CASE(glob_within_a_segment) {
  BOOST_TEST(matches("event_space=FTB.MPI.OPEN*", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(matches("event_space=FTB.MPI.OPEN*", inSpace("FTB.MPI.OPEN")));
  BOOST_TEST(!matches("event_space=FTB.MPI.OPEN*", inSpace("FTB.MPI.OPENMPI.RANK0")));
  BOOST_TEST(matches("event_space=FTB.*B.*X*", inSpace("FTB.IB.MLX5")));
  BOOST_TEST(matches("event_space=ftb.m*i.*mpi", inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(!matches("event_space=FTB.M*I", inSpace("FTB.MPX")));
}

BOOST_AUTO_TEST_CASE(double_star_matches_zero_or_more_segments) {
  BOOST_TEST(matches("event_space=FTB.**", inSpace("FTB")));
  BOOST_TEST(matches("event_space=FTB.**", inSpace("FTB.MPI.OPENMPI.RANK0")));
  BOOST_TEST(!matches("event_space=FTB.**", inSpace("FTBX.MPI")));
  BOOST_TEST(matches("event_space=**", inSpace("ANY.THING")));
  BOOST_TEST(matches("event_space=**.IPMI", inSpace("IPMI")));
  BOOST_TEST(matches("event_space=**.IPMI", inSpace("FTB.NODE.IPMI")));
  BOOST_TEST(!matches("event_space=**.IPMI", inSpace("FTB.IPMI.SEL")));
  BOOST_TEST(matches("event_space=FTB.**.RANK0", inSpace("FTB.RANK0")));
  BOOST_TEST(matches("event_space=FTB.**.RANK0", inSpace("FTB.MPI.OPENMPI.RANK0")));
  BOOST_TEST(!matches("event_space=FTB.**.RANK0", inSpace("FTB.MPI.RANK1")));
  BOOST_TEST(matches("event_space=FTB.**.**.X.*", inSpace("FTB.A.B.X.Y.Z")));
  BOOST_TEST(!matches("event_space=FTB.**.**.X.*", inSpace("FTB.A.B.X")));
}

// Matching backtracked over every way to split the space among the '**'s:
// this took minutes (found while writing tests/fuzz/filter_fuzzer; its input
// is kept in tests/fuzz/corpus/filter_fuzzer/regression_double_star_backtracking).
BOOST_AUTO_TEST_CASE(many_double_stars_match_in_polynomial_time) {
  std::string pattern = "event_space=";
  for (int i = 0; i < 12; ++i) pattern += "**.A.";
  std::string space;
  for (int i = 0; i < 60; ++i) space += "A.";
  BOOST_TEST(!matches(pattern + "C", inSpace(space + "B")));
  BOOST_TEST(matches(pattern + "B", inSpace(space + "B")));
  BOOST_TEST(matches(pattern + "**", inSpace(space + "B")));
}

BOOST_AUTO_TEST_CASE(severity_comparisons) {
  const proto::Severity all[] = {proto::INFO, proto::WARNING, proto::ERROR, proto::FATAL};
  auto set = [&](const std::string& text) {
    std::string out;
    for (auto s : all) out += matches(text, withSeverity(s)) ? '1' : '0';
    return out;
  };
  BOOST_TEST(set("severity>=warning") == "0111");
  BOOST_TEST(set("severity>warning") == "0011");
  BOOST_TEST(set("severity<=warning") == "1100");
  BOOST_TEST(set("severity<warning") == "1000");
  BOOST_TEST(set("severity!=warning") == "1011");
  BOOST_TEST(set("severity = error") == "0010");
  BOOST_TEST(set("severity >= FATAL") == "0001");
  BOOST_TEST(set("severity<info") == "0000");
  BOOST_TEST(set("severity>=info") == "1111");
  BOOST_TEST(set("severity=info|fatal") == "1001");
  BOOST_TEST(set("severity=info, severity=fatal") == "1001");
  BOOST_TEST(set("severity!=info|fatal") == "0110");
  BOOST_TEST(set("severity!=info, severity!=fatal") == "0110");
  BOOST_TEST(set("severity>=warning, severity!=fatal") == "0110");
  BOOST_TEST(set("severity>=error, severity=info") == "1011");
  BOOST_TEST(set("severity=all|info") == "1111");
  BOOST_TEST(set("severity=all, severity!=info") == "0111");
  BOOST_TEST(!matches("severity>=info", withSeverity(proto::SEVERITY_UNSPECIFIED)));
  BOOST_TEST(matches("severity=all", withSeverity(proto::SEVERITY_UNSPECIFIED)));
}

BOOST_AUTO_TEST_CASE(several_values_or_within_and_across_keys) {
  const std::string text = "event_name=A|B | c, severity>=error";
  BOOST_TEST(matches(text, make(Ev{.name = "A"})));
  BOOST_TEST(matches(text, make(Ev{.name = "B"})));
  BOOST_TEST(matches(text, make(Ev{.name = "C"})));
  BOOST_TEST(!matches(text, make(Ev{.name = "D"})));
  BOOST_TEST(!matches(text, make(Ev{.name = "A", .severity = proto::INFO})));
  BOOST_TEST(matches("event_name=A, event_name=B", make(Ev{.name = "B"})));
  BOOST_TEST(matches("host_name=n1|n2, host_name=n3", make(Ev{.host = "n3"})));
  BOOST_TEST(!matches("host_name=n1|n2, host_name=n3", make(Ev{.host = "n4"})));
  BOOST_TEST(matches("event_space=FTB.IB.*|FTB.MPI.*", inSpace("FTB.MPI.X")));
  BOOST_TEST(matches("event_name=all|A", make(Ev{.name = "Z"})));
}

BOOST_AUTO_TEST_CASE(not_equal_means_none_of_them) {
  BOOST_TEST(!matches("jobid!=1234", make(Ev{})));
  BOOST_TEST(matches("jobid!=1234", make(Ev{.job = "99"})));
  BOOST_TEST(!matches("jobid!=1|2", make(Ev{.job = "2"})));
  BOOST_TEST(!matches("jobid!=1, jobid!=2", make(Ev{.job = "1"})));
  BOOST_TEST(matches("jobid!=1, jobid!=2", make(Ev{.job = "3"})));
  const std::string text = "event_space=FTB.MPI.*, event_space!=FTB.MPI.MPICH";
  BOOST_TEST(matches(text, inSpace("FTB.MPI.OPENMPI")));
  BOOST_TEST(!matches(text, inSpace("FTB.MPI.MPICH")));
  BOOST_TEST(!matches(text, inSpace("FTB.IB.X")));
  BOOST_TEST(!matches("event_name!=ftb_*", make(Ev{})));
  BOOST_TEST(matches("client_name!=ftbctl", make(Ev{})));
}

BOOST_AUTO_TEST_CASE(globs_on_exact_fields) {
  BOOST_TEST(matches("host_name=node0*", make(Ev{})));
  BOOST_TEST(matches("host_name=*01", make(Ev{})));
  BOOST_TEST(matches("host_name=n*e*1", make(Ev{})));
  BOOST_TEST(!matches("host_name=NODE*", make(Ev{})));
  BOOST_TEST(matches("jobid=12*", make(Ev{})));
  BOOST_TEST(matches("client_name=*", make(Ev{})));
  BOOST_TEST(!matches("client_name=*x*", make(Ev{})));
  BOOST_TEST(matches("jobid=*", make(Ev{.job = ""})));
  BOOST_TEST(!matches("jobid=1234", make(Ev{.job = ""})));
}

BOOST_AUTO_TEST_CASE(event_name_globs_are_case_insensitive) {
  BOOST_TEST(matches("event_name=*procs*", make(Ev{})));
  BOOST_TEST(matches("event_name=FTB_MPI_*", make(Ev{})));
  BOOST_TEST(!matches("event_name=FTB_IB_*", make(Ev{})));
  BOOST_TEST(matches("event_name=IB.PORT-*", make(Ev{.name = "IB.PORT-DOWN"})));
  BOOST_TEST(matches("event_name=a*b*c", make(Ev{.name = "AXXBXXBC"})));
}

BOOST_AUTO_TEST_CASE(filters_are_copyable_values) {
  Filter a = parse("severity=fatal");
  Filter b = a;
  BOOST_TEST(b.matches(withSeverity(proto::FATAL)));
  BOOST_TEST(!b.matches(withSeverity(proto::INFO)));
  BOOST_TEST(b.text() == "severity=fatal");
}

// ---- errors ----

BOOST_AUTO_TEST_CASE(structural_errors) {
  expectError("all", {"missing '='", "'all'"});
  expectError("event_space FTB.MPI", {"missing '='", "'event_space FTB.MPI'"});
  expectError("=FTB", {"missing key", "'=FTB'"});
  expectError("severity=info,", {"empty element"});
  expectError("severity=info,,jobid=1", {"empty element"});
  expectError(",severity=info", {"empty element"});
  expectError("jobid!5", {"'!='", "'jobid!5'"});
}

BOOST_AUTO_TEST_CASE(unknown_key_lists_valid_keys) {
  expectError("region=FTB", {"unknown key 'region'",
                             "event_space, severity, jobid, host_name, event_name, client_name"});
  expectError("event space=FTB", {"unknown key 'event space'"});
  expectError("job_id=1", {"unknown key 'job_id'"});
}

BOOST_AUTO_TEST_CASE(empty_values) {
  expectError("severity=", {"empty value", "'severity'"});
  expectError("jobid =  ", {"empty value", "'jobid'"});
  expectError("event_name=A||B", {"empty value", "'event_name'"});
  expectError("event_name=A|", {"empty value", "'event_name'"});
  expectError("host_name!=", {"empty value", "'host_name'"});
}

BOOST_AUTO_TEST_CASE(bad_severity) {
  expectError("severity=loud", {"'loud'", "info, warning, error, fatal"});
  expectError("severity>=warn", {"'warn'"});
  expectError("severity==info", {"'=info'"});
  expectError("severity=info|bad", {"'bad'"});
  expectError("severity>=all", {"'>='", "'all'"});
  expectError("severity<all", {"'<'", "'all'"});
}

BOOST_AUTO_TEST_CASE(operator_not_allowed_for_key) {
  for (const char* key : {"event_space", "jobid", "host_name", "event_name", "client_name"}) {
    for (const char* op : {">=", ">", "<=", "<"}) {
      expectError(std::string(key) + op + "x",
                  {"'" + std::string(key) + "'", "'" + std::string(op) + "'"});
    }
  }
}

BOOST_AUTO_TEST_CASE(not_equal_all_is_rejected) {
  expectError("jobid!=all", {"'jobid'", "!=all"});
  expectError("severity!=ALL", {"'severity'", "!=all"});
}

BOOST_AUTO_TEST_CASE(bad_event_space_patterns) {
  expectError("event_space=FTB..MPI", {"'FTB..MPI'", "segment 2 is empty"});
  expectError("event_space=FTB.", {"segment 2 is empty"});
  expectError("event_space=.FTB", {"segment 1 is empty"});
  expectError("event_space=FTB.M/PI", {"'FTB.M/PI'", "'M/PI'", "invalid character '/'"});
  expectError("event_space=FTB.M PI", {"invalid character ' '"});
  expectError("event_space=FTB.?", {"invalid character '?'"});
  expectError("event_space=ftb.m/pi", {"'ftb.m/pi'", "segment 2 'm/pi'"});
  expectError("event_space=FTB.A**", {"'A**'", "whole segment"});
}

BOOST_AUTO_TEST_CASE(bad_event_name_patterns) {
  expectError("event_name=PORT/DOWN", {"'PORT/DOWN'", "invalid character '/'"});
  expectError("event_name=PORT DOWN", {"invalid character ' '"});
  expectError("event_name=A?", {"invalid character '?'"});
}

BOOST_AUTO_TEST_CASE(whitespace_inside_exact_values) {
  expectError("host_name=node 01", {"'node 01'", "'host_name'", "whitespace"});
  expectError("jobid=1\t2", {"'jobid'", "whitespace"});
}

}  // namespace
}  // namespace ftb

BOOST_AUTO_TEST_CASE(a_pattern_longer_than_its_field_can_be_is_refused_and_the_error_is_short) {
  const std::string long_name(10'000, 'A');
  auto f = ftb::Filter::parse("event_name=" + long_name);
  BOOST_REQUIRE(!f.ok());
  const std::string& m = f.status().message();
  BOOST_TEST(m.find("is 10000 characters; a event_name is at most 128") != std::string::npos, m);
  BOOST_TEST(m.size() < 400u, m.size() << " characters");
  BOOST_TEST(!ftb::Filter::parse("client_name=" + std::string(129, 'c')).ok());
  BOOST_TEST(ftb::Filter::parse("client_name=" + std::string(128, 'c')).ok());
  auto bad_char = ftb::Filter::parse("event_space=FTB." + std::string(5'000, 'x') + "!");
  BOOST_REQUIRE(!bad_char.ok());
  BOOST_TEST(bad_char.status().message().size() < 400u, bad_char.status().message());
}
