// `cpa completion`: a bash completion script generated from the command tree itself, so it can
// never lag behind the commands (zsh loads it through bashcompinit).
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { action } from '../context.js';
import { io } from '../io.js';

const flags = (options: readonly Option[]) => options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));

/** Every command path (`''`, `'posts'`, `'posts list'`) with the words that may follow it. */
export function completionTable(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const globals = [...flags(program.options), '--help'];
  const walk = (cmd: Command, path: string[]) => {
    const words = [...cmd.commands.map((c) => c.name()), ...(cmd === program ? [] : flags(cmd.options)), ...globals];
    table.set(path.join(' '), [...new Set(words)]);
    for (const c of cmd.commands) walk(c, [...path, c.name()]);
  };
  walk(program, []);
  return table;
}

export function bashScript(program: Command): string {
  const cases = [...completionTable(program)].map(([path, words]) => `    '${path}') echo '${words.join(' ')}' ;;`).join('\n');
  return `# bash completion for cpa. Install: cpa completion > ~/.local/share/bash-completion/completions/cpa
# zsh: autoload -U +X bashcompinit && bashcompinit && source <(cpa completion)
_cpa_words() {
  case "$1" in
${cases}
  esac
}
_cpa() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    case " $(_cpa_words "$path") " in
      *" $w "*) path="\${path:+$path }$w" ;;
    esac
  done
  COMPREPLY=($(compgen -W "$(_cpa_words "$path")" -- "$cur"))
}
complete -F _cpa cpa
`;
}

export function registerCompletionCommand(program: Command) {
  program
    .command('completion')
    .description('print a bash completion script (zsh: through bashcompinit)')
    .action(
      action(async () => {
        io.stdout.write(bashScript(program));
      }),
    );
}
