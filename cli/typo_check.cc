#include "cli/typo_check.h"

#include <CLI/CLI.hpp>

#include "cli/suggest.h"

namespace ftb::cli {
namespace {

// "--name" for every long name of `app`'s options (and -h/--help).
std::vector<std::string> optionWords(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) words.push_back("--" + name);
  }
  return words;
}

const CLI::Option* findOption(const CLI::App& app, const std::string& word) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->check_name(word)) return option;
  }
  return nullptr;
}

std::string didYouMean(const std::string& typed, const std::vector<std::string>& candidates) {
  const std::string guess = closestMatch(typed, candidates);
  return guess.empty() ? "" : "; did you mean '" + guess + "'?";
}

}  // namespace

std::string findUnknownWord(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* command = nullptr;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;  // CLI11's end of options; let it judge the rest
    if (arg.size() > 1 && arg[0] == '-') {
      std::string word = arg.substr(0, arg.find('='));
      if (word.size() > 2 && word[1] != '-') continue;  // -abc: short flags, judged by CLI11
      const CLI::Option* option = command ? findOption(*command, word) : nullptr;
      if (option == nullptr) option = findOption(app, word);
      if (option == nullptr) {
        std::vector<std::string> candidates = optionWords(app);
        std::string where = "ftbctl";
        if (command != nullptr) {
          const std::vector<std::string> own = optionWords(*command);
          candidates.insert(candidates.begin(), own.begin(), own.end());
          where += " " + command->get_name();
        }
        return where + ": unknown option '" + word + "'" + didYouMean(word, candidates) +
               " (see '" + where + " --help')";
      }
      // Its value is the next word unless given as --name=value.
      if (option->get_items_expected_max() != 0 && arg.find('=') == std::string::npos) ++i;
      continue;
    }
    if (command != nullptr) continue;  // an option's further value; CLI11 judges it
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      if (sub->check_name(arg)) command = sub;
    }
    if (command == nullptr) {
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        names.push_back(sub->get_name());
      }
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      const std::string hint = didYouMean(arg, names);
      return "ftbctl: unknown command '" + arg + "'" +
             (hint.empty() ? "; commands: " + known : hint) + " (see 'ftbctl --help')";
    }
  }
  return {};
}

}  // namespace ftb::cli
