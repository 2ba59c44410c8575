// The model file (JSON through nlohmann/json; model.hpp gives the layout) and the per-GPU lookup.
#include "model/model.hpp"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuformats::model {

namespace {

constexpr const char *kKind = "gpuformats-spmv-model";
using Json                  = nlohmann::ordered_json; // members in the order written

std::string num(double v)
{
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char *type_name(const Json &v)
{
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// Field access with errors that name the file and the field.
struct Fields {
  const Json        &v;
  const std::string &file, &where;
  [[noreturn]] void  bad(const std::string &what) const { throw Error(ErrorKind::bad_input, "model file " + file + ": " + where + what); }
  const Json        &get(const char *key, bool (Json::*is)() const noexcept, const char *want) const
  {
    auto it = v.find(key);
    if (it == v.end()) bad("missing \"" + std::string(key) + "\"");
    if (!((*it).*is)()) bad("\"" + std::string(key) + "\" must be " + want + ", not " + type_name(*it));
    return *it;
  }
  double number(const char *key) const
  {
    const double x = get(key, &Json::is_number, "a number").get<double>();
    if (!std::isfinite(x)) bad("\"" + std::string(key) + "\" is not finite");
    return x;
  }
  int64_t integer(const char *key, int64_t lo, int64_t hi) const
  {
    const double x = number(key);
    if (x != std::floor(x) || x < (double)lo || x > (double)hi)
      bad("\"" + std::string(key) + "\" must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got " + num(x));
    return (int64_t)x;
  }
  std::string string(const char *key) const { return get(key, &Json::is_string, "a string").get<std::string>(); }
  const Json &array(const char *key) const { return get(key, &Json::is_array, "an array"); }
};

} // namespace

std::string to_json(const Model &m)
{
  Json cands = Json::array();
  for (const Candidate &c : m.candidates)
    cands.push_back({{"name", c.name}, {"coef", std::vector<double>(c.coef.begin(), c.coef.end())}, {"samples", c.samples}, {"rms_rel_error", c.rms_rel_error}, {"max_rel_error", c.max_rel_error}});
  const Json o = {{"kind", kKind}, {"version", m.version}, {"gpu", m.gpu}, {"sm_count", m.sm_count}, {"max_threads_per_sm", m.max_threads_per_sm}, {"l2_bytes", m.l2_bytes}, {"strip_rows", m.strip_rows}, {"note", m.note}, {"terms", term_names()}, {"candidates", cands}};
  return o.dump(2) + "\n";
}

void write_model(const Model &m, const std::string &path)
{
  std::ofstream f(path);
  if (!f) throw Error(ErrorKind::bad_input, "cannot write the model file " + path);
  f << to_json(m);
  f.close();
  if (!f) throw Error(ErrorKind::bad_input, "cannot write the model file " + path);
}

Model from_json(const std::string &text, const std::string &name)
{
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error &e) {
    throw Error(ErrorKind::bad_input, "model file " + name + ": not valid JSON: " + e.what());
  }
  if (!root.is_object()) throw Error(ErrorKind::bad_input, "model file " + name + ": the top level must be an object");
  const std::string top;
  const Fields      f{root, name, top};
  if (f.string("kind") != kKind) f.bad("\"kind\" must be \"" + std::string(kKind) + "\"; got \"" + f.string("kind") + "\"");
  Model m;
  m.version = (int)f.integer("version", 0, 1 << 30);
  if (m.version != kModelVersion) f.bad("version " + std::to_string(m.version) + " is not the version this library reads (" + std::to_string(kModelVersion) + "); calibrate again, or refit from that calibration's log: bin/gpuformats_calibrate -refit <log> -o <file>");
  m.gpu                = f.string("gpu");
  m.sm_count           = (int)f.integer("sm_count", 1, 1 << 20);
  m.max_threads_per_sm = (int)f.integer("max_threads_per_sm", 1, 1 << 20);
  m.l2_bytes           = f.integer("l2_bytes", 0, (int64_t)1 << 50);
  m.strip_rows         = (int32_t)f.integer("strip_rows", 1, 0x7fffffff);
  if (m.strip_rows != strip_rows_for(m.sm_count, m.max_threads_per_sm))
    f.bad("\"strip_rows\" " + std::to_string(m.strip_rows) + " is not sm_count x max_threads_per_sm = " + std::to_string(strip_rows_for(m.sm_count, m.max_threads_per_sm)));
  if (root.contains("note")) m.note = f.string("note");
  const Json &terms = f.array("terms");
  bool        same  = terms.size() == (size_t)kTerms;
  for (size_t k = 0; same && k < terms.size(); ++k) same = terms[k].is_string() && terms[k].get<std::string>() == term_name((int)k);
  if (!same) {
    std::string want;
    for (int k = 0; k < kTerms; ++k) want += std::string(k ? ", " : "") + term_name(k);
    f.bad("\"terms\" must be [" + want + "] (a model of another form; calibrate again)");
  }
  const Json &cands = f.array("candidates");
  if (cands.empty()) f.bad("\"candidates\" is empty");
  std::set<std::string> seen;
  for (size_t i = 0; i < cands.size(); ++i) {
    const std::string where = "candidate " + std::to_string(i) + ": ";
    if (!cands[i].is_object()) f.bad(where + "must be an object");
    const Fields c{cands[i], name, where};
    Candidate    k;
    k.name = c.string("name");
    if (k.name.empty()) c.bad("\"name\" is empty");
    if (!seen.insert(k.name).second) c.bad("\"" + k.name + "\" appears twice");
    const Json &coef = c.array("coef");
    if (coef.size() != (size_t)kTerms) c.bad("\"coef\" of " + k.name + " has " + std::to_string(coef.size()) + " numbers, not " + std::to_string(kTerms));
    for (int t = 0; t < kTerms; ++t) {
      if (!coef[t].is_number() || !std::isfinite(coef[t].get<double>()) || coef[t].get<double>() < 0)
        c.bad("\"coef\" of " + k.name + ", term " + term_name(t) + ", must be a finite number >= 0");
      k.coef[t] = coef[t].get<double>();
    }
    k.samples       = (int)c.integer("samples", 0, 1 << 30);
    k.rms_rel_error = c.number("rms_rel_error");
    k.max_rel_error = c.number("max_rel_error");
    m.candidates.push_back(k);
  }
  return m;
}

Model read_model(const std::string &path)
{
  std::ifstream f(path);
  if (!f) throw Error(ErrorKind::bad_input, "cannot read the model file " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return from_json(ss.str(), path);
}

// --- lookup ---

std::string model_file_name(const std::string &gpu_name)
{
  std::string o;
  bool        dash = false;
  for (unsigned char ch : gpu_name) {
    if (std::isalnum(ch)) {
      if (dash && !o.empty()) o += '-';
      o += (char)std::tolower(ch);
      dash = false;
    } else dash = true;
  }
  return (o.empty() ? std::string("unnamed-gpu") : o) + ".json";
}

std::vector<std::string> model_dirs()
{
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("GPUFORMATS_MODEL_DIR"); env && *env) dirs.push_back(env);
  Dl_info info{};
  if (dladdr((const void *)&model_dirs, &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    // An executable found through PATH reports argv[0]; /proc/self/exe is the real one then.
    if (self.find('/') == std::string::npos) {
      char    buf[4096];
      ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
      if (n > 0) self.assign(buf, (size_t)n);
    }
    const size_t slash = self.rfind('/');
    const std::string bindir = slash == std::string::npos ? "." : self.substr(0, slash);
    dirs.push_back(bindir + "/../share/gpuformats/models");
    // bin/test/<program> of the source tree is one level further down.
    dirs.push_back(bindir + "/../../share/gpuformats/models");
  }
  return dirs;
}

Model default_model()
{
  Model m;
  m.gpu                = "(default: no calibrated model)";
  m.sm_count           = 1;
  m.max_threads_per_sm = 1 << 18; // strips of 262144 rows, about an H100's
  m.strip_rows         = strip_rows_for(m.sm_count, m.max_threads_per_sm);
  m.l2_bytes           = 50 << 20;
  m.is_default         = true;
  m.note               = "uncalibrated: always cuSPARSE CSR, what aijcusparse runs";
  Candidate c;
  c.name    = kCusparseCsr;
  c.coef    = {5e-6, 8.0 / 2e12, 12.0 / 2e12, 0, 0, 0};
  m.candidates.push_back(c);
  return m;
}

Model find_model(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *found)
{
  const std::string file = model_file_name(gpu_name);
  std::string       tried;
  for (const std::string &d : dirs) {
    const std::string path = d + "/" + file;
    struct stat       st{};
    if (stat(path.c_str(), &st) == 0) {
      Model m = read_model(path);
      if (found) *found = path;
      return m;
    }
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw Error(ErrorKind::unsupported, "no SpMV model for the GPU \"" + gpu_name + "\" (looked for " + (tried.empty() ? file + " in no directory" : tried) + "); " + kCalibrateHint);
}

Model model_or_default(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *message, std::string *path)
{
  if (message) message->clear();
  if (path) path->clear();
  try {
    return find_model(gpu_name, dirs, path);
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    if (message) *message = std::string(e.what()) + ". Until then: cuSPARSE CSR everywhere (the default model, never slower than aijcusparse).";
    return default_model();
  }
}

} // namespace gpuformats::model
